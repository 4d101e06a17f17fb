#if os(Linux)
    import Foundation

    // The file's format: a binary property list, read by the library's own reader where it can.
    extension LinuxSaver {
        // MARK: The file's format

        /// The dictionary in a suite's file: the library's own reader for the binary files it writes, and
        /// Foundation's for anything else (an XML file from `synchronize()`, kinds the reader leaves).
        /// Names are kept by their bytes (``ExactText``): a file may hold two forms of one text that Swift
        /// takes for equal, and Foundation keeps both.
        static func parse(_ bytes: [UInt8]) -> [ExactText: Any]? {
            parseJudging(bytes).parsed
        }

        /// `parse`, and whether the file is one no reader may be handed
        /// (`BinaryPropertyList.isRefusedOutright`): judged once, by the library's reader as it reads
        /// (which builds no more than the file holds), or before Foundation's reader sees it.
        static func parseJudging(_ bytes: [UInt8]) -> (parsed: [ExactText: Any]?, refusedOutright: Bool) {
            switch BinaryPropertyList.decodeJudging(bytes) {
            case .read(let dictionary): return (dictionary, false)
            case .refused: return (nil, true)
            case .notRead: return (parsedByFoundation(bytes), false)
            }
        }

        /// What Foundation's parser reads from `bytes`, which the library's own reader left.
        private static func parsedByFoundation(_ bytes: [UInt8]) -> [ExactText: Any]? {
            guard let parsed = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil),
                let dictionary = parsed as? [String: Any]
            else { return nil }
            // Foundation's objects (NSNumber, ...) are left to Foundation's slow encoder, save after save:
            // take them through its binary form once, which the library's reader turns into Swift values.
            if let binary = try? PropertyListSerialization.data(fromPropertyList: parsed, format: .binary, options: 0),
                let dictionary = BinaryPropertyList.decode([UInt8](binary))
            {
                return dictionary
            }
            return Dictionary(uniqueKeysWithValues: dictionary.map { (ExactText($0), $1) })
        }

        static func encode(_ contents: [ExactText: Any]) throws -> [UInt8] {
            do {
                return try PropertyListDocument.encoded(contents, format: .binary)
            } catch {
                throw FileFailure.failed(action: "cannot encode the values (\(error)) of", path: "the suite", nil)
            }
        }
    }
#endif
