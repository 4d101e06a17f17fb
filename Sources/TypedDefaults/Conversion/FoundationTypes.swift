import Foundation

extension String: UserDefaultConvertible {
    /// Reads a stored string; any other type reads as `nil`.
    public init?(userDefaultsObject object: Any) {
        guard let value = exactValue(object, as: String.self) ?? object as? String else { return nil }
        self = value
    }
    /// The string itself.
    public var userDefaultsObject: Any? { self }
}

extension Data: UserDefaultConvertible {
    /// Reads stored data; any other type reads as `nil`.
    public init?(userDefaultsObject object: Any) {
        guard let value = object as? Data else { return nil }
        self = value
    }
    /// The data itself.
    public var userDefaultsObject: Any? { self }
}

extension Date: UserDefaultConvertible {
    /// Reads a stored date, or ISO 8601 text such as `2026-11-21T10:00:00Z` (a launch argument).
    public init?(userDefaultsObject object: Any) {
        if let value = object as? Date {
            self = value
        } else if let text = object as? String, let value = Date(iso8601: text) {
            self = value
        } else {
            return nil
        }
    }
    /// The date itself, the property list's native date.
    public var userDefaultsObject: Any? { self }

    private init?(iso8601 text: String) {
        // A formatter per call: this path runs only for text from launch arguments.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) {
            self = date
            return
        }
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { return nil }
        self = date
    }
}

/// `text` with a leading `~` (this user's home) or `~name` resolved. On Linux `~` and `~/…` resolve
/// against `$HOME`, the home the library saves suites under (Linux.md), not the password file's, which
/// Foundation's `expandingTildeInPath` reads: a relative `HOME` is taken from the working directory, and
/// an unset or empty one is `/`, as for the suites. Elsewhere, and for `~name`, Foundation resolves it.
func expandingTilde(_ text: String) -> String {
    #if os(Linux)
        if text == "~" || text.hasPrefix("~/") {
            var home = ProcessInfo.processInfo.environment["HOME"] ?? ""
            if !home.isEmpty, !home.hasPrefix("/") {
                home = FileManager.default.currentDirectoryPath + "/" + home
            }
            let path = home + text.dropFirst()
            return path.isEmpty ? "/" : path
        }
    #endif
    return NSString(string: text).expandingTildeInPath
}

extension URL: UserDefaultConvertible {
    /// Reads a URL stored as its absolute string, a plain path (`/tmp/x`, `~/x`), the dictionary form
    /// below, or the archived form that Apple's `UserDefaults.set(_:forKey:)` writes for a URL.
    public init?(userDefaultsObject object: Any) {
        if let text = object as? String {
            guard let url = URL(storedText: text) else { return nil }
            self = url
        } else if let parts = object as? [String: Any] {
            guard let url = URL(storedParts: parts) else { return nil }
            self = url
        } else if let archive = object as? Data, let url = unarchivedURL(from: archive) {
            self = url
        } else {
            return nil
        }
    }

    /// A URL with a scheme (`https://…`, `file:///…`, `mailto:…`) is stored as its absolute string,
    /// exact on every platform (Foundation on Linux stores a URL set through `set(_:forKey:)` as an
    /// empty string). Any other URL (`www.example.com`, `relative/path`, `?q=1`, `#frag`,
    /// `//example.com/a`, `/a/path?q=1`) or a URL relative to a base is stored as
    /// `["relative": relativeString, "base": base's absolute string]`: as a string it would read back
    /// as a file path, or not at all.
    public var userDefaultsObject: Any? {
        if baseURL == nil, scheme != nil { return absoluteString }
        var parts: [String: Any] = ["relative": relativeString]
        if let baseURL { parts["base"] = baseURL.absoluteString }
        return parts
    }

    private init?(storedParts parts: [String: Any]) {
        guard let relative = parts["relative"] as? String, parts.count <= 2 else { return nil }
        var base: URL?
        if let baseText = parts["base"] {
            guard let text = baseText as? String, let url = URL(string: text) else { return nil }
            base = url
        }
        guard let url = URL(string: relative, relativeTo: base) else { return nil }
        self = url
    }

    private init?(storedText text: String) {
        // The first byte decides, checked on UTF-8: `hasPrefix` costs more than the rest of the checks.
        switch text.utf8.first {
        case UInt8(ascii: "/"):
            self.init(fileURLWithPath: text)
        case UInt8(ascii: "~"):
            self.init(fileURLWithPath: expandingTilde(text))
        default:
            guard Self.startsWithScheme(text), let url = URL(string: text) else { return nil }
            self = url
        }
    }

    /// Whether `text` starts with a URL scheme (`https:`, `mailto:`): a letter, then letters, digits,
    /// `+`, `-` or `.`, then a colon. Cheaper than asking the parsed URL for its scheme.
    private static func startsWithScheme(_ text: String) -> Bool {
        var isFirst = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: ":"): return !isFirst
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if isFirst { return false }
            default: return false
            }
            isFirst = false
        }
        return false
    }
}

extension UUID: UserDefaultConvertible {
    /// Reads a UUID stored as its string form.
    public init?(userDefaultsObject object: Any) {
        guard let text = object as? String, let value = UUID(uuidString: text) else { return nil }
        self = value
    }
    /// The UUID's string form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public var userDefaultsObject: Any? { uuidString }
}
