// What `typed-defaults --help` and `typed-defaults help COMMAND` print.

enum Help {
    static let summary = """
        typed-defaults: reads and edits a suite of settings, as Apple's `defaults` does, through the
        TypedDefaults library's own saver: on Linux under the suite's file lock, replaced atomically, and
        seen by running apps that use the library within 200 ms.

        usage: typed-defaults COMMAND ...
          read    [--json] SUITE [NAME]      print the suite, or one value
          write   SUITE NAME VALUE           store a value (VALUE: a type flag and its text)
          delete  SUITE [NAME]               remove one value, or every value of the suite
          rename  SUITE OLD NEW              move a value to a new name
          domains [--json]                   list the suites stored here
          export  [-format F] SUITE FILE|-   write the suite to a property-list file (F: binary1, xml1)
          import  [-format F] SUITE FILE|-   replace the suite with a property-list file's values
          help    [COMMAND]                  this text, or a command's

        SUITE may be --app NAME: the suite an app's standard store keeps (its bundle identifier or
        process name). Exit status: 0 done, 1 failed (nothing changed), 2 input not understood.
        """

    static let commands: [String: String] = [
        "read": """
        usage: typed-defaults read [--json] SUITE [NAME]
        Prints every value of SUITE, or the value named NAME, as old-style property-list text (as
        `defaults read` prints). --json prints JSON: dates as ISO 8601 text, data as base64.
        examples:
          typed-defaults read com.example.app
          typed-defaults read com.example.app launchCount
          typed-defaults read --json --app com.example.app
        """,
        "write": """
        usage: typed-defaults write SUITE NAME VALUE
        VALUE is a type flag and its text, as `defaults write` takes them:
          -string TEXT   -int N   -float R   -bool true|false|yes|no|1|0   -data HEX
          -date 2026-11-26T09:30:00.25Z (ISO 8601; or 2026-11-26 09:30:00 +0000)
          -array V...   -array-add V...   -dict KEY V ...   -dict-add KEY V ...
          -json TEXT     any property-list value written as JSON
        A word with no flag is a string. Elements of -array and -dict take flags too.
        examples:
          typed-defaults write com.example.app launchCount -int 3
          typed-defaults write com.example.app tags -array -string a -int 2
          typed-defaults write com.example.app window -json '{"width": 800, "full": false}'
        """,
        "delete": """
        usage: typed-defaults delete SUITE [NAME]
        Removes the value named NAME (a name with no value fails), or every value of SUITE.
        example:
          typed-defaults delete com.example.app launchCount
        """,
        "rename": """
        usage: typed-defaults rename SUITE OLD NEW
        Moves the value named OLD to NEW, in one step; fails when OLD has no value or NEW has one.
        example:
          typed-defaults rename com.example.app count launchCount
        """,
        "domains": """
        usage: typed-defaults domains [--json]
        Lists the suites stored where this user's suites are (Linux: $XDG_CONFIG_HOME or ~/.config).
        """,
        "export": """
        usage: typed-defaults export [-format binary1|xml1] SUITE FILE|-
        Writes every value of SUITE to FILE (- : standard output), binary by default. The XML format
        keeps dates to the second, as the format does; binary keeps them exact.
        example:
          typed-defaults export com.example.app backup.plist
        """,
        "import": """
        usage: typed-defaults import [-format binary1|xml1] SUITE FILE|-
        Replaces the values of SUITE with those in FILE (- : standard input), a binary or XML property
        list of a dictionary, judged before it is read: a file no reader may be handed is refused.
        example:
          typed-defaults import com.example.app backup.plist
        """,
        "help": """
        usage: typed-defaults help [COMMAND]
        """,
    ]

    static func text(of command: String?) -> String {
        command.flatMap { commands[$0] } ?? summary
    }

    /// The usage line printed after input the command does not understand.
    static func usage(of command: String?) -> String {
        if let command, let text = commands[command], let line = text.split(separator: "\n").first {
            return String(line) + "\n(typed-defaults help \(command) says more)"
        }
        return
            "usage: typed-defaults read|write|delete|rename|domains|export|import|help ... (typed-defaults --help says more)"
    }
}
