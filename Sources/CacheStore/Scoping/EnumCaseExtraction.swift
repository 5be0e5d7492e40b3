/// The payload an enum value carries when it is the case that `embed` makes: what a lift needs to
/// tell the feature's actions among the app's, without a hand-written `if case` closure.
///
/// `embed` is a case of the app's action enum used as a function (`AppAction.list`). A value is that
/// case when its case name, read by reflection, is the one `embed` makes, and its payload is a
/// `Payload` (the case's one associated value, labelled or not): embedding that payload again must
/// give the same case name, so two cases with the same payload type (`.left(CounterAction)`,
/// `.right(CounterAction)`) stay apart.
///
/// Reflection costs more than an `if case`: a lift on a hot path can still take an `extractAction`
/// closure instead.
@usableFromInline
struct EnumCaseExtraction<Value, Payload>: Sendable {
    @usableFromInline let embed: @Sendable (Payload) -> Value

    @usableFromInline
    init(embed: @escaping @Sendable (Payload) -> Value) {
        self.embed = embed
    }

    /// `value`'s payload when `value` is the case `embed` makes; else `nil`.
    @usableFromInline
    func payload(of value: Value) -> Payload? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum, let child = mirror.children.first, let name = child.label,
            let payload = Self.payload(in: child.value)
        else { return nil }
        return Mirror(reflecting: embed(payload)).children.first?.label == name ? payload : nil
    }

    /// The payload in a case's associated value: the value itself, or its one labelled element.
    private static func payload(in associated: Any) -> Payload? {
        if let payload = associated as? Payload { return payload }
        let elements = Mirror(reflecting: associated)
        guard elements.displayStyle == .tuple, elements.children.count == 1 else { return nil }
        return elements.children.first?.value as? Payload
    }
}
