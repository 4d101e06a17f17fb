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

        /// Why the file of the suite `suite` cannot be read (a link, a FIFO, a file refused outright,
        /// bytes that are not a property list the library reads), or nil when it can, or there is none.
        /// Only looks: nothing is moved or changed.
        static func suiteFileProblem(_ suite: String) -> String? {
            guard let file = SuiteFile(domain: suite) else { return nil }
            do {
                guard let version = try FileVersion.open(file.path) else { return nil }
                let limit = PropertyListDocument.maximumSize
                guard version.identity.size <= limit else { return "\(file.path) is larger than \(limit >> 20) MB" }
                let bytes = try version.readAll(path: file.path, limit: limit + 1)
                guard bytes.isEmpty || PropertyListDocument.suiteContentsJudging(bytes).parsed != nil else {
                    return "\(file.path) is not a property list the library reads"
                }
                return nil
            } catch FileFailure.refused(let path, let reason) {
                return "\(path): \(reason)"
            } catch {
                return "\(file.path): \(error)"
            }
        }

        /// The folder of this process's suites: the configuration folder.
        static func suitesDirectory() -> String { SuiteFile.directory() }

        /// Where the key manifest of `suite` is, for a process with `environment`.
        static func manifestPath(ofSuite suite: String, environment: [String: String]) -> String? {
            SuiteFile(domain: suite, environment: environment)?.manifestPath
        }

        /// Which domain a `UserDefaults` made by the caller keeps.
        static func domain(of defaults: UserDefaults) -> DefaultsDomain {
            defaults === UserDefaults.standard ? .standard : CorelibsInternals.domain(of: defaults)
        }
    }
#endif
