/// A key that carries the type of its value and the value it reads as while it has none: declared
/// once, read and written through subscripts the compiler checks.
///
/// Declare a store's typed keys as static members of `TypedKey`, beside the plain keys they wrap,
/// one extension per value type:
///
/// ```swift
/// enum SettingsKey { case fontSize, lineHeight, nickname }
///
/// extension TypedKey<SettingsKey, Int> {
///     static var fontSize: Self { .init(.fontSize, default: 14) }
///     static var lineHeight: Self { .init(.lineHeight, default: 20) }
/// }
///
/// extension TypedKey<SettingsKey, String?> {
///     static var nickname: Self { .init(.nickname, default: nil) }
/// }
/// ```
///
/// (An extension per value type, rather than one `where Key == SettingsKey` whose members name
/// their types, is what lets the compiler say what is wrong with a wrong-type read: with the other
/// form, Swift 6.3 reports only "failed to produce diagnostic for expression".)
///
/// Then `state[.fontSize]` is an `Int` in a handler (`state[.fontSize] += 1`), `store[.fontSize]`
/// reads it, and `let name: String = store[.fontSize]` does not compile. A typed key is its plain
/// key everywhere else: observation tracks the plain key, `changes` and the debug log name it, a
/// scope or a lifted feature maps it, and the untyped `get(_:as:)` reads the same value.
///
/// A key that has no value reads as `defaultValue`, and so does a key whose value is of another
/// type (one written through the untyped API): ``CacheStore/CacheStore/resolve(_:)`` throws an
/// error naming the key and both types instead. Writing `nil` to a key of an `Optional` type
/// removes the key, as ``CacheStore/CacheStore/set(value:forKey:)`` does.
///
/// ## Topics
///
/// ### Declaring a typed key
///
/// - ``init(_:default:)``
/// - ``key``
/// - ``defaultValue``
/// - ``description``
public struct TypedKey<Key: Hashable & SendableMetatype, Value> {
    /// The plain key the value is stored under.
    public let key: Key
    /// What the key reads as while it has no value of type `Value`.
    public let defaultValue: Value

    /// A typed key over `key`, reading `defaultValue` while it has no value.
    ///
    /// ```swift
    /// TypedKey<SettingsKey, Int>(.fontSize, default: 14)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The plain key the value is stored under.
    ///   - defaultValue: What the key reads as while it has no value.
    @inlinable
    public init(_ key: Key, default defaultValue: Value) {
        self.key = key
        self.defaultValue = defaultValue
    }
}

extension TypedKey: Sendable where Key: Sendable, Value: Sendable {}

extension TypedKey: CustomStringConvertible {
    /// The plain key and the value type: `.fontSize as Int`.
    public var description: String {
        "\(ValueDump.inline(key)) as \(Value.self)"
    }
}
