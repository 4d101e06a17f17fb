// What `typed-defaults --help` and `typed-defaults help COMMAND` print, made from `Subcommands.all`.

enum Help {
    /// The package's version, as CHANGELOG.md's newest section names it ("unreleased" until a release is
    /// tagged; a test holds the two together).
    static let version = "unreleased"

    static let summary: String = {
        // Columns as wide as the longest name and a usual synopsis; a longer synopsis puts its summary on
        // the next line (`padding` would cut it).
        let nameWidth = Subcommands.all.map { $0.name.count }.max()! + 2
        let synopsisWidth = 30
        let lines = Subcommands.all.map { command in
            let start = "  " + command.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            guard command.synopsis.count < synopsisWidth else {
                return start + command.synopsis + "\n" + String(repeating: " ", count: 2 + nameWidth + synopsisWidth)
                    + command.summary
            }
            return start + command.synopsis.padding(toLength: synopsisWidth, withPad: " ", startingAt: 0)
                + command.summary
        }
        return """
            typed-defaults: reads and edits a suite of settings, as Apple's `defaults` does, through the
            TypedDefaults library's own saver: on Linux under the suite's file lock, replaced atomically, and
            seen by running apps that use the library within 200 ms.

            usage: typed-defaults COMMAND ...

            """ + lines.joined(separator: "\n") + """


                SUITE may be --app NAME (or -app NAME): the suite an app's standard store keeps (its bundle identifier or
                process name); -g, -globalDomain or NSGlobalDomain: the global domain, which every app reads; a path
                (any SUITE with a '/', '.plist' optional): that file, checked against the key manifest beside it.
                Exit status: 0 done, 1 failed (nothing changed), 2 input not understood or a value refused.
                --version prints the version.
                """
    }()

    /// A subcommand's help: its usage line, then its details.
    static func text(of command: (any Subcommand.Type)?) -> String {
        guard let command else { return summary }
        return command.details.isEmpty ? command.usage : command.usage + "\n" + command.details
    }

    /// The usage line printed after input the command does not understand.
    static func usage(of name: String?) -> String {
        if let command = name.flatMap(Subcommands.named) {
            return command.usage + "\n(typed-defaults help \(command.name) says more)"
        }
        let names = Subcommands.all.map { $0.name }.joined(separator: "|")
        return "usage: typed-defaults \(names) ... (typed-defaults --help says more)"
    }
}
