#if !os(Linux)
    import Foundation

    /// Apple platforms (and any platform but Linux): the system persists every `UserDefaults` write,
    /// keeps full date precision and merges writers from several processes, so there is no saver.
    enum Platform {
        /// No saver: the system saves.
        static func makeSaver(domain: DefaultsDomain, defaults: UserDefaults) -> (any DomainSaver)? { nil }

        /// Whether Foundation can be handed suite `suiteName`: always, here.
        static func isUsableSuite(_ suiteName: String) -> Bool { true }

        /// Why the file of the suite cannot be read: the system reads it, never the library.
        static func suiteFileProblem(_ suite: String) -> String? { nil }

        /// The folder of this process's suites: the user's preferences folder.
        static func suitesDirectory() -> String { NSHomeDirectory() + "/Library/Preferences" }

        /// Where the key manifest of a suite is: the library keeps none here.
        static func manifestPath(ofSuite suite: String, environment: [String: String]) -> String? { nil }

        /// Which domain a `UserDefaults` made by the caller keeps: only the standard object is known;
        /// Foundation here does not tell a suite's name.
        static func domain(of defaults: UserDefaults) -> DefaultsDomain {
            defaults === UserDefaults.standard ? .standard : .unknown
        }
    }
#endif
