import CacheStore
import CacheStoreTesting
import Foundation
import Testing

// The examples of the Getting started article (Documentation.docc/GettingStarted.md).

nonisolated enum CartKey { case items, total, updatedAt }

nonisolated extension TypedKey<CartKey, [String]> {
    static var items: Self { .init(.items, default: []) }
}

nonisolated extension TypedKey<CartKey, Int> {
    static var total: Self { .init(.total, default: 0) }
}

enum CartAction {
    case add(name: String, price: Int)
    case clear
}

typealias CartHandler = StoreActionHandler<CartKey, CartAction, Void>

nonisolated let cartHandler = CartHandler { state, action, _ in
    switch action {
    case .add(let name, let price):
        state.update(.items, as: [String].self) { items in
            items = (items ?? []) + [name]
        }
        state.update(.total, as: Int.self) { total in
            total = (total ?? 0) + price
        }
    case .clear:
        state.remove(.items)
        state.set(value: 0, forKey: .total)
    }
    return .none
}

struct Clock: Sendable {
    var now: @Sendable () -> Date
}

typealias TimedCartHandler =
    StoreActionHandler<CartKey, CartAction, Clock>

let timedCartHandler = TimedCartHandler { state, action, clock in
    let effect = cartHandler.handle(
        store: &state, action: action, dependency: ())
    state.set(value: clock.now(), forKey: .updatedAt)
    return effect
}

nonisolated enum ShelfKey { case labels, total }

struct Book {
    var title: String
    var price: Int
    var label: String { "\(title), \(price)" }
}

func discounted(_ price: Int) -> Int { price * 9 / 10 }

extension TypedKey<ShelfKey, [String]> {
    static var labels: Self { .init(.labels, default: []) }
}

extension TypedKey<ShelfKey, Int> {
    static var total: Self { .init(.total, default: 0) }
}

enum ShelfAction {
    case add(Book)
    case clear
}

typealias ShelfHandler = StoreActionHandler<ShelfKey, ShelfAction, Void>

let shelfHandler = ShelfHandler.mainActor { state, action, _ in
    switch action {
    case .add(let book):
        state[.labels].append(book.label)
        state[.total] += discounted(book.price)
    case .clear:
        state[.labels] = []
        state[.total] = 0
    }
    return .none
}

let sortedShelfHandler = ShelfHandler(combining: [
    shelfHandler,
    .mainActor { state, _, _ in
        state[.labels].sort()
        return .none
    },
])

@Suite(.timeLimit(.minutes(2))) struct GettingStartedExamples {
    @Test @MainActor func aMainActorHandlerUsesTheAppsCodeAsItIs() {
        let shelf = Store(initialValues: [:], actionHandler: shelfHandler)
        shelf.handle(action: .add(Book(title: "Dune", price: 10)))
        let total = shelf[.total]  // 9

        #expect(total == 9)
        #expect(shelf[.labels] == ["Dune, 10"])
        let sorted = Store(initialValues: [:], actionHandler: sortedShelfHandler)
        sorted.handle(action: .add(Book(title: "Emma", price: 20)))
        sorted.handle(action: .add(Book(title: "Dune", price: 10)))
        #expect(sorted[.labels] == ["Dune, 10", "Emma, 20"])
        sorted.handle(action: .clear)
        #expect(sorted[.total] == 0)
    }

    /// A synchronous test (on the main actor in the main-actor targets) receives what a main-actor
    /// handler's effect sends.
    @Test func aSynchronousTestReceivesAMainActorHandlersEffect() {
        let handler = ShelfHandler.mainActor { state, action, _ in
            guard case .add = action else { return .none }
            return .run { send in await send(.clear) }
        }
        let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
        store.effectTimeout = .seconds(10)
        store.send(.add(Book(title: "Dune", price: 10)))
        store.receive(.clear)
    }

    @Test func aStoreHandlesActionsAndIsReadTyped() throws {
        let cart = Store(initialValues: [.total: 0], actionHandler: cartHandler)
        cart.handle(action: .add(name: "Tea", price: 4))
        cart.handle(action: .add(name: "Cake", price: 3))

        let items = cart.get(.items, as: [String].self) ?? []  // ["Tea", "Cake"]
        let total = try cart.resolve(.total, as: Int.self)  // 7
        let wrongType = cart.get(.total, as: String.self)  // nil: .total holds an Int
        #expect(items == ["Tea", "Cake"])
        #expect(total == 7)
        #expect(wrongType == nil)

        var printed: [String] = []
        let print = { (item: Any) in printed.append("\(item)") }
        do {
            let label = try cart.resolve(.total, as: String.self)
            print(label)
        } catch {
            print(error)  // Key .total was read as String, but holds Int (7).
        }
        #expect(printed == ["Key .total was read as String, but holds Int (7)."])

        let names = cart[.items]  // ["Tea", "Cake"]: a [String]
        let sum = cart[.total]  // 7: an Int

        let typedCartHandler = CartHandler { state, action, _ in
            switch action {
            case .add(let name, let price):
                state[.items].append(name)
                state[.total] += price
            case .clear:
                state[.items] = []
                state[.total] = 0
            }
            return .none
        }
        #expect(names == ["Tea", "Cake"])
        #expect(sum == 7)
        let typedCart = Store(initialValues: [:], actionHandler: typedCartHandler)
        typedCart.handle(action: .add(name: "Tea", price: 4))
        typedCart.handle(action: .add(name: "Cake", price: 3))
        #expect(typedCart[.items] == ["Tea", "Cake"] && typedCart[.total] == 7)

        cart.handle(action: .clear)
        #expect(cart.allValues.count == 1)
        #expect(throws: CacheStore<CartKey>.MissingRequiredKeysError.self) { try cart.require(keys: [.items, .total]) }
    }

    @Test func aCacheOnItsOwn() {
        nonisolated enum SessionKey { case token }

        let session = CacheStore<SessionKey>(initialValues: [:])
        session.set(value: "abc123", forKey: .token)
        session.set(value: nil as String?, forKey: .token)  // removes .token
        let hasToken = session.contains(.token)  // false
        #expect(!hasToken)
        #expect(session.allValues.isEmpty)
    }

    @Test func aHandlerGetsItsDependency() {
        let timedCart = Store(
            initialValues: [:],
            actionHandler: timedCartHandler,
            dependency: Clock(now: { Date() })
        )
        let fixed = Date(timeIntervalSince1970: 1_000)
        let testCart = Store(initialValues: [:], actionHandler: timedCartHandler, dependency: Clock(now: { fixed }))

        timedCart.handle(action: .add(name: "Tea", price: 4))
        testCart.handle(action: .add(name: "Tea", price: 4))
        #expect(timedCart.get(.updatedAt, as: Date.self) != nil)
        #expect(testCart.get(.updatedAt, as: Date.self) == fixed)
        #expect(testCart.get(.total, as: Int.self) == 4)
    }
}
