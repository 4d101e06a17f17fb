import Foundation
import TypedDefaults

extension UserDefaultTypedKeys {
    static let plainLet = UserDefaultTypedKey<Int>(defaultValue: 1)
    static var computed: UserDefaultTypedKey<String?> { .init() }
    static let dict = UserDefaultTypedKey<[String: [Int]]>("dict", defaultValue: ["a": [1]])
}
print(UserDefaultTypedKeys.plainLet.name, UserDefaultTypedKeys.computed.name)
let s = DefaultsStore(suiteName: "probe.smoke")!
s[.plainLet] += 41
s[.dict]["b"] = [2, 3]
print(s[.plainLet], s[.dict], s.snapshot())
