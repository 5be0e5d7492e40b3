// In a main-actor app, an effect runs off the main actor: a main-actor handler's effect calls the
// app's functions with `await`, or they are nonisolated.
// main-actor app
// expect: main actor-isolated global function 'parsed' cannot be called from outside of the actor
import CacheStore

nonisolated enum ShelfKey { case total }
enum ShelfAction { case load, loaded(Int) }

func parsed(_ text: String) -> Int { Int(text) ?? 0 }

let shelfHandler = StoreActionHandler<ShelfKey, ShelfAction, Void>.mainActor { state, action, _ in
    switch action {
    case .load:
        return .run { send in
            let total = parsed("4")
            await send(.loaded(total))
        }
    case .loaded(let total):
        state.set(value: total, forKey: .total)
        return .none
    }
}
