// swift-format-ignore-file
// A sindresorhus/Defaults clipboard app's settings, view model and views, as the guide's table moves it
// (GuideRewriteTests): CI compiles this file on Linux and type-checks it for iOS.
import TypedDefaults
import Foundation
import Observation

extension UserDefaultTypedKeys {
    static let clipHistory = UserDefaultTypedKey<[String]>("clipHistory", defaultValue: [])
    static let clipHistoryLimit = UserDefaultTypedKey<Int>(
        "clipHistoryLimit",
        defaultValue: 200
    )
    static let clipLastPaste = UserDefaultTypedKey<Date?>("clipLastPaste")
    static let clipLayout = UserDefaultTypedKey<ClipSettings.Layout>("clipLayout", defaultValue: .list)
    static let clipPinned = UserDefaultTypedKey<Set<String>>("clipPinned", defaultValue: [])
    static let clipShortcut = UserDefaultTypedKey<ClipSettings.Shortcut?>("clipShortcut")
    static let clipSnoozedUntil = UserDefaultTypedKey<Date>("clipSnoozedUntil", default: { Date.distantPast })
    static let clipPastePlain = UserDefaultTypedKey<Bool>("clipPastePlain", defaultValue: false)
}

enum ClipSettings {
    enum Layout: String, UserDefaultConvertible {
        case list, grid
    }
    struct Shortcut: Codable, UserDefaultConvertible {
        var key: String
        var modifiers: [String]
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@Observable @MainActor
final class ClipboardModel {
    var items: [String] = []
    var layout = ClipSettings.Layout.list
    @ObservationIgnored private var historyObservation: ObservationToken?
    @ObservationIgnored private var layoutObservation: ObservationToken?

    init() {
        historyObservation = Defaults.observe(.clipHistory, initial: true, isolation: MainActor.shared) { change in
            self.items = change.newValue
        }
        layoutObservation = Defaults.observe(.clipLayout, isolation: MainActor.shared) { [weak self] change in
            self?.layout = change.newValue
        }
    }

    func copy(_ text: String) {
        var history = Defaults[.clipHistory]
        history.insert(text, at: 0)
        Defaults[.clipHistory] = Array(history.prefix(Defaults[.clipHistoryLimit]))
        Defaults[.clipLastPaste] = Date()
    }

    func clear() {
        Defaults.remove(.clipHistory, .clipPinned)
    }

    func snoozed() -> Bool {
        Defaults[.clipSnoozedUntil] > Date()
    }
}

func clipHistoryCounts() async -> [Int] {
    var counts: [Int] = []
    for await history in Defaults.updates(.clipHistory) {
        counts.append(history.count)
        if counts.count == 2 { break }
    }
    return counts
}

func useClipKeys(_ shortcut: ClipSettings.Shortcut) -> ObservationToken {
    Defaults[.clipShortcut] = shortcut
    Defaults[.clipPinned].insert(shortcut.key)
    return Defaults.observe(.clipPinned, .clipShortcut, initial: true) {
        print("pins or shortcut changed")
    }
}

#if canImport(SwiftUI)
    import SwiftUI

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    struct ClipSettingsView: View {
        @UserDefaultState(.clipHistoryLimit) var limit
        @UserDefaultState(.clipLayout)
        private var layout

        var body: some View {
            Form {
                Stepper("Keep \(limit)", value: $limit, in: 10...1000)
                Picker("Layout", selection: $layout) {
                    Text("List").tag(ClipSettings.Layout.list)
                    Text("Grid").tag(ClipSettings.Layout.grid)
                }
                Defaults.Toggle("Paste plain text", key: .clipPastePlain)
            }
        }
    }

    // The clipboard app's general pane: a switch with a label and an action, and a reset button that is
    // off while the setting is at its default.
    struct ClipGeneralPane: View {
        @UserDefaultState(.clipHistoryLimit) var limit

        var body: some View {
            Form {
                Defaults.Toggle(key: .clipPastePlain) {
                    Text("Paste plain text")
                }
                .onChange(refreshModifiers)
                Button("Keep the default number") {
                    _limit.remove()
                }
                .disabled(limit == _limit.defaultValue || _limit.isDefaultValue)
            }
        }

        private func refreshModifiers(_ pastePlain: Bool) {
            print("paste plain", pastePlain)
        }
    }
#endif

#if canImport(Combine)
    import Combine

    func clipLayoutSubscription() -> AnyCancellable {
        Defaults.publisher(.clipLayout)
            .sink { print("layout", $0) }
    }
#endif
