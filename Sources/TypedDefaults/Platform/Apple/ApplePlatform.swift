#if !os(Linux)
    import Foundation

    /// Apple platforms (and any platform but Linux): the system persists every `UserDefaults` write,
    /// keeps full date precision and merges writers from several processes, so there is no saver.
    enum Platform {
        /// No saver: the system saves.
        static func makeSaver(domain: DefaultsDomain, defaults: UserDefaults) -> (any DomainSaver)? { nil }

        /// Whether Foundation can be handed suite `suiteName`: always, here.
        static func isUsableSuite(_ suiteName: String) -> Bool { true }

        /// Which domain a `UserDefaults` made by the caller keeps: only the standard object is known;
        /// Foundation here does not tell a suite's name.
        static func domain(of defaults: UserDefaults) -> DefaultsDomain {
            defaults === UserDefaults.standard ? .standard : .unknown
        }
    }
#endif
