// In a main-actor app, a function a handler calls is main-actor isolated unless it is nonisolated.
// main-actor app
// expect: call to main actor-isolated global function 'discounted' in a synchronous nonisolated context
import CacheStore

nonisolated enum CartKey { case total }

func discounted(_ price: Int) -> Int { price * 9 / 10 }

let cartHandler = StoreActionHandler<CartKey, Int, Void> { state, price, _ in
    state.update(.total, as: Int.self) { $0 = ($0 ?? 0) + discounted(price) }
    return .none
}
