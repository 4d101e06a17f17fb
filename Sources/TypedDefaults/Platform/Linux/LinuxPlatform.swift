#if os(Linux)
    import Foundation

    /// Linux: Foundation saves nothing on its own, so every `UserDefaults` domain the library writes gets
    /// a `LinuxSaver`.
    enum Platform {
        static func makeSaver(domain: DefaultsDomain, defaults: UserDefaults) -> (any DomainSaver)? {
            LinuxSaver.make(domain: domain, defaults: defaults)
        }

        /// Whether Foundation can be handed suite `suiteName`: not when its file, or what a link there
        /// leads to, is a FIFO, a socket or a device, where Foundation's first read would wait forever or
        /// never end. Anything else (a link, a directory, a file that cannot be read) is the save's to
        /// refuse and report.
        static func isUsableSuite(_ suiteName: String) -> Bool {
            guard let file = SuiteFile(domain: suiteName) else { return false }
            guard let status = try? System.status(file.path) else { return true }
            let kind = status.st_mode & S_IFMT
            return kind == S_IFREG || kind == S_IFDIR
        }

        /// Which domain a `UserDefaults` made by the caller keeps.
        static func domain(of defaults: UserDefaults) -> DefaultsDomain {
            defaults === UserDefaults.standard ? .standard : CorelibsInternals.domain(of: defaults)
        }
    }
#endif
