// swift-format-ignore-file
// A forum client's SwiftUI settings view on @AppStorage, as the guide's table moves it
// (GuideRewriteTests): the iOS type-check kit checks this file against the real SDK.
import Foundation

#if canImport(SwiftUI)
    import SwiftUI
    import TypedDefaults

    enum ForumListSort: String, CaseIterable, Identifiable, UserDefaultConvertible {
        case newest, oldest, mostReplies
        var id: Self { self }
    }

    struct ForumSettingsView: View {
        @UserDefaultState(UserDefaultTypedKey("forumUploadMode", defaultValue: "anonymous")) private var uploadMode
        @UserDefaultState(UserDefaultTypedKey<ForumListSort>("forumListSort", defaultValue: .newest)) var sort: ForumListSort
        @UserDefaultState(UserDefaultTypedKey("forumRowHeight", defaultValue: 44.0)) var rowHeight
        @UserDefaultState(UserDefaultTypedKey("forumPrefetch", defaultValue: 3)) var prefetch
        @UserDefaultState(UserDefaultTypedKey("forumCompact", defaultValue: false))
        private var compact
        @UserDefaultState(UserDefaultTypedKey<String>("forumSignatureText", defaultValue: "Sent from https://forum.example")) var signature: String
        @UserDefaultState(UserDefaultTypedKey<URL?>("forumHomeURL")) var home: URL?

        var body: some View {
            Form {
                Picker("Uploads", selection: $uploadMode) {
                    Text("Off").tag("off")
                    Text("Anonymous").tag("anonymous")
                    Text("Account").tag("account")
                }
                Picker("Sort", selection: $sort) {
                    ForEach(ForumListSort.allCases) { sort in
                        Text(sort.rawValue).tag(sort)
                    }
                }
                Slider(value: $rowHeight, in: 32...88)
                Stepper("Prefetch \(prefetch)", value: $prefetch, in: 0...10)
                Toggle("Compact", isOn: $compact)
                TextField("Signature", text: $signature)
                Text(home?.absoluteString ?? "no home page")
            }
        }
    }
#endif
