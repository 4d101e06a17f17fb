import Foundation

/// A string compared and hashed by its Unicode scalars, not by Swift's canonical equivalence: `"café"`
/// composed and `"cafe\u{301}"` decomposed are two names, as they are two file names and two keys to
/// Foundation. Where the library keys by text it must keep apart (suite names, the strings a saved
/// file holds), it keys by this.
struct ExactText: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        // Swift's equality first: it tells most unequal names apart at once (by length, or by bytes
        // for ASCII), where walking the bytes of each would cost a dictionary lookup of a big suite's
        // name several times over (measured). Equal bytes are equal text, so only Swift's "equal" is
        // checked by bytes.
        lhs.text == rhs.text && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        // Swift's hash of the text: equal bytes hash equal, and two forms that Swift takes for equal
        // share a bucket, which `==` then tells apart.
        hasher.combine(text)
    }
}

/// Whether `text` has no character outside ASCII (every UTF-8 byte below 0x80): such a text has one
/// form only (no composed and decomposed forms) and takes one byte a character.
func isASCII(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? text.utf8.allSatisfy { $0 < 0x80 }
}

/// `name` without `prefix`, when `name` begins with exactly `prefix`'s Unicode scalars; else nil. Not
/// `hasPrefix`, which compares whole characters: a name whose rest begins with a combining mark
/// (U+0301), a joiner (U+200D) or a variation selector (U+FE0F) merges that mark into the prefix's last
/// character, and `hasPrefix` says no. Where a prefix decides what a listing holds, it decides by this.
func suffix(of name: String, after prefix: String) -> String? {
    guard name.utf8.starts(with: prefix.utf8) else { return nil }
    let start = name.utf8.index(name.utf8.startIndex, offsetBy: prefix.utf8.count)
    return String(name.unicodeScalars[start...])
}

/// The form a name is stored in: its canonical composition (NFC), so that one name has one stored form
/// on every backend. `"café"` composed and `"cafe\u{301}"` decomposed are one name to Swift's `==` (and
/// so to a Swift dictionary, `InMemoryStorage`), two to Apple's Foundation and to a file; a key of either
/// spelling stores under the composed one, and both spellings read what the last write stored. ASCII
/// text has one form and is returned as it is, at the cost of a byte scan.
func canonicalName(_ name: String) -> String {
    isASCII(name) ? name : name.precomposedStringWithCanonicalMapping
}
