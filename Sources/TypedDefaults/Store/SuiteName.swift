/// What a suite name may be: a plain file name, since Foundation keeps suite `S` in a file `S.plist`
/// (and the library, on Linux, beside it in `.S.plist.lock` and `.S.plist.tmp-<random>`).
enum SuiteName {
    /// The longest name, in UTF-8 bytes, whose files all fit the 255 bytes a file name may have.
    static let maximumLength = 255 - ".".utf8.count - ".plist.tmp-".utf8.count - 12

    /// Whether `name` names a file in the preferences directory and nothing else: not empty, not `.` or
    /// `..`, no `/` or NUL, at most ``maximumLength`` bytes.
    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && name.utf8.count <= maximumLength
            && !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
    }
}
