import Foundation

/// A digest of a property-list value that two processes compute alike (Swift's `Hasher` is seeded per
/// process): how many leaves, how many bytes of text and data, and an FNV-1a hash over its shape, each
/// leaf's length and its first and last 16 bytes. For tests that compare what one process wrote with
/// what another read, values of tens of megabytes included, without hashing every byte.
public func propertyListFingerprint(_ value: Any) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var leaves = 0
    var bytes = 0
    func feed(_ part: some Sequence<UInt8>) {
        for byte in part { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }
    func leaf(_ tag: UInt8, _ content: some Collection<UInt8>) {
        leaves += 1
        bytes += content.count
        feed([tag])
        feed(String(content.count).utf8)
        feed(content.prefix(16))
        feed(content.suffix(16))
    }
    func walk(_ value: Any) {
        switch value {
        case let text as String: leaf(0x73, Array(text.utf8))
        case let data as Data: leaf(0x64, data)
        case let array as [Any]:
            feed([0x5B])
            for element in array { walk(element) }
            feed([0x5D])
        case let dictionary as [String: Any]:
            feed([0x7B])
            for key in dictionary.keys.sorted() {
                leaf(0x6B, Array(key.utf8))
                walk(dictionary[key]!)
            }
            feed([0x7D])
        default: leaf(0x3F, Array("\(value)".utf8))
        }
    }
    walk(value)
    return "leaves=\(leaves) bytes=\(bytes) hash=\(String(hash, radix: 16))"
}
