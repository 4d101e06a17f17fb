// swift-format-ignore-file
// A Foil forum client's preferences, as the guide's table moves them (GuideRewriteTests): CI compiles
// this file on Linux and type-checks it for iOS.
import TypedDefaults
import Foundation

struct ForumPreferences: Sendable {
    static let shared = ForumPreferences()

    @UserDefault(UserDefaultTypedKey("forumSignature", defaultValue: "Sent from https://forum.example")) var signature
    @UserDefault(UserDefaultTypedKey("forumPageSize", defaultValue: 25)) var pageSize
    @UserDefault(UserDefaultTypedKey("forumFontScale", defaultValue: 1.0)) private(set) var fontScale
    @UserDefault(UserDefaultTypedKey("forumShowImages", defaultValue: true)) var showImages
    @UserDefault(UserDefaultTypedKey("forumMarkRead", defaultValue: false))
    var markReadOnScroll
    @UserDefault(UserDefaultTypedKey<ForumSort>("forumSort", defaultValue: .newest)) var sort: ForumSort
    @UserDefault(UserDefaultTypedKey<[String]>("forumHidden", defaultValue: [])) var hiddenForums: [String]
    @UserDefault(UserDefaultTypedKey("forumTheme", defaultValue: ForumTheme.Appearance.system)) var theme
    @UserDefault(UserDefaultTypedKey<Date?>("forumLastVisit")) var lastVisit: Date?
    @UserDefault(UserDefaultTypedKey<ForumDraft?>("forumDraft")) var draft: ForumDraft?

    private init() {}
}

enum ForumSort: String, UserDefaultConvertible {
    case newest, oldest
}

enum ForumTheme {
    enum Appearance: Int, UserDefaultConvertible {
        case system, light, dark
    }
}

struct ForumDraft: Codable, Equatable, UserDefaultConvertible {
    var title: String
    var body: String
}

func openForum() -> String {
    let preferences = ForumPreferences.shared
    preferences.pageSize += 5
    if preferences.showImages { preferences.lastVisit = Date() }
    preferences.draft = ForumDraft(title: "Re: settings", body: "")
    preferences.hiddenForums.append("off-topic")
    return "\(preferences.signature) \(preferences.fontScale) \(preferences.markReadOnScroll) \(preferences.sort) \(preferences.theme)"
}
