/// A value of a store that a control reads and changes: reading gets the key's value, setting sends
/// an action that carries the new value. The platform-neutral half of a SwiftUI `Binding`.
///
/// ```swift
/// let name = store.binding(.nickname, using: ProfileAction.rename)
/// name.wrappedValue            // store[.nickname]
/// name.wrappedValue = "Ada"    // store.handle(action: .rename("Ada"))
/// ```
///
/// In a SwiftUI view, one line makes it a `Binding`, and the view's `body` tracks the key it reads:
///
/// ```swift
/// TextField("Name", text: Binding(get: name.get, set: name.set))
/// ```
///
/// The store's state changes only through its handler: if the handler rejects the value, the next
/// read shows the value the handler kept.
///
/// ## Topics
///
/// - ``init(get:set:)``
/// - ``get``
/// - ``set``
/// - ``wrappedValue``
public struct StoreBinding<Value>: Sendable {
    /// Reads the key's value.
    public let get: @Sendable () -> Value
    /// Sends the action that carries a new value.
    public let set: @Sendable (Value) -> Void

    /// A binding from a reading and a sending function.
    ///
    /// ```swift
    /// let flag = StoreBinding(get: { store[.isOn] }, set: { store.handle(action: .setOn($0)) })
    /// ```
    ///
    /// - Parameters:
    ///   - get: Reads the value.
    ///   - set: Sends the action that carries a new value.
    public init(get: @escaping @Sendable () -> Value, set: @escaping @Sendable (Value) -> Void) {
        self.get = get
        self.set = set
    }

    /// The value: reading calls ``get``, writing calls ``set``.
    public var wrappedValue: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }
}

extension Store {
    /// A binding of a typed key: it reads the key (its default while it has no value) and sets it by
    /// sending `action(newValue)`.
    ///
    /// ```swift
    /// let fontSize = store.binding(.fontSize, using: SettingsAction.setFontSize)
    /// Stepper("Size", value: Binding(get: fontSize.get, set: fontSize.set))   // SwiftUI
    /// ```
    ///
    /// - Parameters:
    ///   - key: The typed key read.
    ///   - action: Makes the action that sets the key to a new value.
    /// - Returns: The binding.
    public func binding<Value: Sendable>(
        _ key: TypedKey<Key, Value>, using action: @escaping @Sendable (Value) -> Action
    ) -> StoreBinding<Value> {
        // The key is only hashed and compared, as the store does with its keys on any thread.
        let plainKey = UncheckedSendable(key.key)
        let defaultValue = key.defaultValue
        return StoreBinding(
            get: { self.get(plainKey.value, as: Value.self) ?? defaultValue },
            set: { self.handle(action: action($0)) })
    }

    /// A binding of a plain key, reading `fallback` while the key has no value of type `Value`: the
    /// original CacheStore's `binding(_:fallback:using:)`, without SwiftUI.
    ///
    /// ```swift
    /// let query = store.binding(.query, fallback: "", using: SearchAction.setQuery)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key read.
    ///   - fallback: What the binding reads while the key has no value of type `Value`.
    ///   - action: Makes the action that sets the key to a new value.
    /// - Returns: The binding.
    public func binding<Value: Sendable>(
        _ key: Key, fallback: Value, using action: @escaping @Sendable (Value) -> Action
    ) -> StoreBinding<Value> {
        binding(TypedKey(key, default: fallback), using: action)
    }
}
