// swift-format-ignore-file
// A SwiftyUserDefaults wallet's keys and call sites, as the guide's table moves them (GuideRewriteTests):
// CI compiles this file on Linux and type-checks it for iOS. It holds the shapes that escaped earlier
// tables: `#function` names, a member on the next line, an `@_exported` import, declarations over several
// lines (the `.init(` on the next line, `return .init(`, arguments one a line, a nested generic type),
// and the traps a rewrite must leave alone: `UserDefaults.standard`, method calls such as
// `Defaults.observe(`, the store's own properties, a type whose name ends in `Defaults`.
@_exported import TypedDefaults
import Foundation
extension UserDefaultTypedKeys {
    static let fiat = UserDefaultTypedKey<String>("fiat", defaultValue: "USD")
    static let fromTokenAddress = UserDefaultTypedKey<String?>("fromTokenAddress")
    static let walletCount = UserDefaultTypedKey<Int>("walletCount", defaultValue: 0)
    static let tokens = UserDefaultTypedKey<[String: [Int]]>("tokens", defaultValue: [:])
    static let walletLaunches = UserDefaultTypedKey<Int>("walletLaunches", defaultValue: 0)
    static let lastSeen = UserDefaultTypedKey<Date?>("lastSeen")
    static let favorites = UserDefaultTypedKey<Set<String>>("favorites",
            defaultValue: []
        )
    static let volume = UserDefaultTypedKey<Double>("volume",
                                            defaultValue: 0.5)
}
enum AppDefaults { static let count = 1 }
struct WalletSettings {
    @UserDefault(.walletLaunches) var launches: Int
    @UserDefault(.volume) var volume: Double
}
func useWallet() -> ObservationToken {
    let fiat = Defaults[.fiat]
    Defaults[.fiat] = "EUR"
    Defaults[.walletCount] += 1
    let address = Defaults[.fromTokenAddress]
    UserDefaults.standard.set(1, forKey: "x")
    let token = Defaults.observe(.fiat) { _ in }
    token.cancel()
    Defaults.removeAll()
    let prefix = Defaults.keyPrefix
    let other = AppDefaults.count
    print(fiat, address as Any, prefix, other, Defaults[.tokens], Defaults[.lastSeen] as Any, Defaults[.favorites])
    return Defaults.observe(.walletLaunches) { change in print(change.newValue) }
}
