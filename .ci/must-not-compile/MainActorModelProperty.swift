// In a main-actor app, a model's computed property is main-actor isolated unless its type is nonisolated.
// main-actor app
// expect: main actor-isolated property 'label' can not be referenced from a Sendable closure
import CacheStore

nonisolated enum CartKey { case label }

struct Item {
    var name: String
    var price: Int
    var label: String { "\(name): \(price)" }
}

let cartHandler = StoreActionHandler<CartKey, Item, Void> { state, item, _ in
    state.set(value: item.label, forKey: .label)
    return .none
}
