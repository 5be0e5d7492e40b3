// In a main-actor app, a model's method is main-actor isolated unless its type is nonisolated.
// main-actor app
// expect: call to main actor-isolated instance method 'doubled()' in a synchronous nonisolated context
import CacheStore

nonisolated enum CartKey { case item }

struct Item {
    var name: String
    var price: Int
    func doubled() -> Item { Item(name: name, price: price * 2) }
}

let cartHandler = StoreActionHandler<CartKey, Item, Void> { state, item, _ in
    state.set(value: item.doubled(), forKey: .item)
    return .none
}
