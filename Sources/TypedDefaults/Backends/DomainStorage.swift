import Foundation

/// A storage whose values live in a domain of the platform's preferences, as `UserDefaults`' do: the
/// one seam behind which everything the library does differently for `UserDefaults` sits (its saver on
/// Linux, its listing, its removal, its process-wide registered defaults). The context asks for it once,
/// when it is made; the core never asks which type its storage is.
protocol DomainStorage: KeyValueStorage {
    /// Which domain this object keeps, as far as the platform tells.
    var preferencesDomain: DefaultsDomain { get }
    /// What saves this object's writes in `domain` where the platform does not (Linux); nil elsewhere.
    func makeSaver(for domain: DefaultsDomain) -> (any DomainSaver)?
    /// Every value stored in `domain`, without registered defaults and launch arguments; nil for a
    /// domain the library cannot name.
    func storedValues(in domain: DefaultsDomain) -> [String: Any]?
    /// Removes every value of `domain`, where no saver does it.
    func removeValues(in domain: DefaultsDomain)
}

extension UserDefaults: DomainStorage {
    var preferencesDomain: DefaultsDomain { Platform.domain(of: self) }

    func makeSaver(for domain: DefaultsDomain) -> (any DomainSaver)? {
        Platform.makeSaver(domain: domain, defaults: self)
    }

    func storedValues(in domain: DefaultsDomain) -> [String: Any]? {
        domain == .unknown ? nil : persistentDomain(forName: domain.name) ?? [:]
    }

    func removeValues(in domain: DefaultsDomain) {
        removePersistentDomain(forName: domain.name)
    }
}
