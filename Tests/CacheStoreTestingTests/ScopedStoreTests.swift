import CacheStoreTesting
import Testing

enum ShopKey: Hashable, Sendable {
    case cart, total, orders
}

enum ShopAction: Sendable {
    case recalculate
}

enum CartAction: Sendable, Equatable {
    case add(String)
    case clear
}

/// The app's reaction to the cart: a new total, and an order count the cart's scope cannot see.
let shopHandler = StoreActionHandler<ShopKey, ShopAction, Void> { state, action, _ in
    switch action {
    case .recalculate:
        let cart = state.get(.cart, as: [String].self) ?? []
        state.set(value: cart.count * 5, forKey: .total)
        state.update(.orders, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        return .none
    }
}

let cartHandler = StoreActionHandler<ShopKey, CartAction, Void> { state, action, _ in
    switch action {
    case .add(let item):
        state.update(.cart, as: [String].self) { $0 = ($0 ?? []) + [item] }
    case .clear:
        state.set(value: [String](), forKey: .cart)
    }
    return .none
}

/// A shop store, and its cart scope: `.add` asks the shop to recalculate; `.clear` does not.
func makeCartStore() -> (shop: Store<ShopKey, ShopAction, Void>, cart: Store<ShopKey, CartAction, Void>) {
    let shop = Store(
        initialValues: [.cart: [String](), .total: 0, .orders: 0], actionHandler: shopHandler, dependency: ())
    let cart = shop.scope(
        keys: [.cart, .total],
        actionHandler: cartHandler,
        dependencyTransformation: { _ in },
        actionTransformation: { action in action == .clear ? nil : .recalculate }
    )
    return (shop, cart)
}

@Suite(.timeLimit(.minutes(1))) struct ScopedStoreTests {
    @Test func aScopedStoreForwardsToItsParentAndSeesItsWrites() async {
        let (shop, cart) = makeCartStore()
        let failures = await captureFailures {
            let store = TestStore(store: cart)
            store.send(.add("Tea")) { state in
                state.set(value: ["Tea"], forKey: .cart)
                state.set(value: 5, forKey: .total)  // the shop's write, in the cart's keys
            }
        }
        #expect(failures.isEmpty)
        #expect(shop.get(.orders, as: Int.self) == 1)  // written by the shop, outside the cart's keys
    }

    @Test func aParentWriteTheExpectationLeftOutIsReported() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(store: makeCartStore().cart)
            sendLine = #line + 1
            store.send(.add("Tea")) { $0.set(value: ["Tea"], forKey: .cart) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        State after .add("Tea") does not match the expectation (− expected, + actual):
                          .total
                        −   0
                        +   5
                        Fix the expectation closure, or the handler if the state is wrong.
                        """,
                    line: sendLine)
            ])
    }

    @Test func anActionThatMapsToNoParentActionChangesOnlyTheScope() async {
        let (shop, cart) = makeCartStore()
        let failures = await captureFailures {
            let store = TestStore(store: cart)
            store.send(.clear)
        }
        #expect(failures.isEmpty)
        #expect(shop.get(.orders, as: Int.self) == 0)
    }
}
