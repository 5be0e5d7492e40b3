// In a main-actor app, a handler constant used inside another handler is main-actor isolated unless it is nonisolated.
// main-actor app
// expect: main actor-isolated let 'cartHandler' can not be referenced from a nonisolated context
import CacheStore

nonisolated enum CartKey { case total }

let cartHandler = StoreActionHandler<CartKey, Int, Void> { state, price, _ in
    state.update(.total, as: Int.self) { $0 = ($0 ?? 0) + price }
    return .none
}

let loggedCartHandler = StoreActionHandler<CartKey, Int, Void> { state, price, _ in
    cartHandler.handle(store: &state, action: price, dependency: ())
}
