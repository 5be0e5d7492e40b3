// In a main-actor app, a typed key's static property is main-actor isolated unless its extension is nonisolated.
// main-actor app
// expect: main actor-isolated static property 'items' can not be referenced from a Sendable closure
import CacheStore

nonisolated enum CartKey { case items }

extension TypedKey<CartKey, [String]> {
    static var items: Self { .init(.items, default: []) }
}

let cartHandler = StoreActionHandler<CartKey, String, Void> { state, name, _ in
    state[.items].append(name)
    return .none
}
