extension CacheStore {
    /// Thrown when keys that must have values have none.
    ///
    /// Its description names every missing key (the first 20, then a count):
    /// `Missing required keys (2): .token, .url`.
    ///
    /// ## Topics
    ///
    /// ### Inspecting the error
    ///
    /// - ``keys``
    /// - ``description``
    ///
    /// ### Creating the error
    ///
    /// - ``init(keys:)``
    public struct MissingRequiredKeysError: Error, CustomStringConvertible, @unchecked Sendable {
        /// Every key that had no value.
        public let keys: Set<Key>

        /// Creates the error for `keys`.
        ///
        /// - Parameter keys: The keys that had no value.
        public init(keys: Set<Key>) {
            self.keys = keys
        }

        /// A sentence naming the missing keys, sorted, at most 20 of them followed by a count.
        public var description: String {
            let names = keys.map { key in ValueDump.inline(key) }.sorted()
            return "Missing required keys (\(names.count)): \(ValueDump.truncatedList(names, limit: 20))"
        }
    }

    /// Thrown when a key's value is not of the type it was read as.
    ///
    /// Its description names the key and both types:
    /// `Key .url was read as URL, but holds String ("example").`
    ///
    /// ## Topics
    ///
    /// ### Inspecting the error
    ///
    /// - ``key``
    /// - ``expectedType``
    /// - ``actualValue``
    /// - ``description``
    ///
    /// ### Creating the error
    ///
    /// - ``init(key:expectedType:actualValue:)``
    public struct InvalidTypeError: Error, CustomStringConvertible, @unchecked Sendable {
        /// The key that was read.
        public let key: Key
        /// The type the value was read as.
        public let expectedType: Any.Type
        /// The value the key holds.
        public let actualValue: Any

        /// Creates the error for `key`.
        ///
        /// - Parameters:
        ///   - key: The key that was read.
        ///   - expectedType: The type the value was read as.
        ///   - actualValue: The value the key holds.
        public init(key: Key, expectedType: Any.Type, actualValue: Any) {
            self.key = key
            self.expectedType = expectedType
            self.actualValue = actualValue
        }

        /// A sentence naming the key, the type it holds (with a short dump of the value) and the type
        /// it was read as.
        public var description: String {
            let actualType = String(describing: type(of: actualValue))
            let value = ValueDump.inline(actualValue, maxLength: 80)
            // No articles: "a Int" and "an URL" would both read wrong.
            return
                "Key \(ValueDump.inline(key)) was read as \(String(describing: expectedType)), but holds \(actualType) (\(value))."
        }
    }
}
