// In a main-actor app, an action's Equatable conformance is main-actor isolated unless the type is nonisolated.
// main-actor app
// expect: main actor-isolated conformance of 'CartAction' to 'Equatable' cannot be used in nonisolated context
import CacheStore

nonisolated enum CartKey { case items }

enum CartAction: Equatable {
    case add(String)
    case clear
}

let cartHandler = StoreActionHandler<CartKey, CartAction, Void> { state, action, _ in
    if action == .clear { state.remove(.items) }
    return .none
}
