import CacheStoreTesting
import Foundation
import Testing

private final class Payload: @unchecked Sendable {
    let n: Int

    init(n: Int) {
        self.n = n
    }
}

/// Not `Equatable`: compared field by field.
private struct Model: Sendable {
    var id: Int
    var title: String
}

/// A dictionary key that counts how often keys are compared.
private struct CountedKey: Hashable, @unchecked Sendable {
    static let comparisons = LockedList<Int>()
    var id: Int

    static func == (lhs: Self, rhs: Self) -> Bool {
        comparisons.append(lhs.id)
        return lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

private indirect enum Chain: Sendable {
    case end
    case link(Int, Chain)

    static func of(depth: Int) -> Chain {
        var chain = Chain.end
        for index in 0..<depth { chain = .link(index, chain) }
        return chain
    }

    /// Releases the chain link by link: the runtime's own release of a long chain recurses.
    static func dismantle(_ chain: consuming Chain) {
        var current = chain
        while case .link(_, let next) = consume current { current = next }
    }
}

private enum PayloadAction: Sendable {
    case write
    case fetch
    case gotPayload(Payload)
}

private enum ListAction: Sendable {
    case fetch
    case got([[String]])
}

private final class Box: @unchecked Sendable {
    var value: Any

    init(_ value: Any) {
        self.value = value
    }
}

/// A test store whose `.write` sets `.value` to what `written` holds, and whose `.fetch` effect
/// (id `"fetch"`) produces `.gotPayload(sent)`.
private func makeStore(writing written: Box, sent: Payload = Payload(n: 1), initialValues: [String: Any] = [:])
    -> TestStore<String, PayloadAction, Void>
{
    let handler = StoreActionHandler<String, PayloadAction, Void> { state, action, _ in
        switch action {
        case .write: state.set(value: written.value, forKey: "value")
        case .fetch: return ActionEffect(id: "fetch") { .gotPayload(sent) }
        case .gotPayload: break
        }
        return .none
    }
    return TestStore(initialValues: initialValues, actionHandler: handler, dependency: ())
}

/// Four words: stored out of line in an `Any`, which holds a box's address instead.
private struct LargeValue: Equatable {
    var a = 1, b = 2, c = 3, d = 4
}

@Suite(.timeLimit(.minutes(1))) struct ValueComparisonTests {
    /// The test store first compares values by the bytes an `Any` stores (see `IdenticalValues`); the
    /// verdicts must stay those of the full comparison.
    @Test func equalValuesOfEveryKindOfStorageAreEqual() async {
        let shared = Payload(n: 1)
        let failures = await captureFailures {
            makeStore(writing: Box(true)).send(.write) { $0.set(value: true, forKey: "value") }
            makeStore(writing: Box(-0.0)).send(.write) { $0.set(value: 0.0, forKey: "value") }
            makeStore(writing: Box(LargeValue())).send(.write) { $0.set(value: LargeValue(), forKey: "value") }
            makeStore(writing: Box(shared)).send(.write) { $0.set(value: shared, forKey: "value") }
            makeStore(writing: Box("a" + "b")).send(.write) { $0.set(value: "ab", forKey: "value") }
            let removed = makeStore(writing: Box(0), initialValues: ["other": 1])
            removed.send(.write) { state in
                state.set(value: 0, forKey: "value")
                state.remove("absent")
            }
        }
        #expect(failures.map(\.message) == [])
    }

    @Test func sameBytesOfAnotherTypeOrUnequalValuesDiffer() async {
        let failures = await captureFailures {
            makeStore(writing: Box(UInt(5))).send(.write) { $0.set(value: 5, forKey: "value") }
            makeStore(writing: Box(Int8(2))).send(.write) { $0.set(value: Int8(1), forKey: "value") }
            // The same first byte, the same first word.
            makeStore(writing: Box(512)).send(.write) { $0.set(value: 256, forKey: "value") }
            makeStore(writing: Box((1, 3))).send(.write) { $0.set(value: (1, 2), forKey: "value") }
            makeStore(writing: Box(0)).send(.write) { $0.remove("value") }
            makeStore(writing: Box(LargeValue(d: 5))).send(.write) { $0.set(value: LargeValue(), forKey: "value") }
            makeStore(writing: Box(Payload(n: 1))).send(.write) { $0.set(value: Payload(n: 1), forKey: "value") }
        }
        #expect(failures.count == 7)
        #expect(failures.map(\.message).allSatisfy { $0.hasPrefix("State after .write does not match") })
        #expect(failures.first?.message.contains("(types differ: − Int, + UInt)") == true)
    }

    @Test func nanEqualsNaN() async {
        let failures = await captureFailures {
            let store = makeStore(writing: Box(Double.nan))
            store.send(.write) { $0.set(value: Double.nan, forKey: "value") }
            let arrays = makeStore(writing: Box([1, Double.nan]))
            arrays.send(.write) { $0.set(value: [1, Double.nan], forKey: "value") }
        }
        #expect(failures.map(\.message) == [])
    }

    @Test func aTypeDifferenceIsNamed() async {
        let failures = await captureFailures {
            let store = makeStore(writing: Box(["a"[...]]))
            store.send(.write) { $0.set(value: ["a"], forKey: "value") }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .write does not match the expectation (− expected, + actual):
                  "value"
                    ["a"]
                    (types differ: − Array<String>, + Array<Substring>)
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func instancesUnequalOnlyByIdentityAreSaidToBe() async {
        let (sent, expected) = (Payload(n: 1), Payload(n: 1))
        let failures = await captureFailures {
            let store = makeStore(writing: Box(0), sent: sent)
            store.send(.fetch)
            await store.receive(.gotPayload(expected))
        }
        #expect(
            failures.map(\.message) == [
                """
                Received an unexpected action from the effect "fetch" (− expected, + received):
                  .gotPayload(Payload(n: 1))
                  (different instances of Payload at .gotPayload, which compares by identity: \
                − \(ObjectIdentifier(expected)), + \(ObjectIdentifier(sent)))
                Fix the action passed to receive(_:), or the effect if it sends the wrong action.
                """
            ])
    }

    @Test func aHugeStringIsShownAroundTheDifference() async {
        let long = String(repeating: "a", count: 100_000)
        let failures = await captureFailures {
            let store = makeStore(writing: Box(long + "b"))
            store.send(.write) { $0.set(value: long + "c", forKey: "value") }
        }
        let window = String(repeating: "a", count: 40)
        #expect(
            failures.map(\.message) == [
                """
                State after .write does not match the expectation (− expected, + actual):
                  "value"
                −   "\(window)c" (characters 99961–100001 of 100001)
                +   "\(window)b" (characters 99961–100001 of 100001)
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func dictionariesOfNonEquatableValuesCompareInLinearTime() async {
        func models(_ order: [Int], capacity: Int) -> [CountedKey: Model] {
            // Different capacities: the two dictionaries keep their entries in different orders.
            var models = [CountedKey: Model](minimumCapacity: capacity)
            for id in order {
                models[CountedKey(id: id)] = Model(id: id, title: String(repeating: "t", count: 20) + "\(id)")
            }
            return models
        }
        let count = 300
        let failures = await captureFailures {
            let store = makeStore(writing: Box(models(Array((0..<count).reversed()), capacity: count)))
            let expected = models(Array(0..<count), capacity: count * 8)
            let before = CountedKey.comparisons.values.count
            store.send(.write) { $0.set(value: expected, forKey: "value") }
            // One key lookup per entry (a few comparisons more where hashes collide, which depends on
            // the process's hash seed): a quadratic search compared ~count² / 2 pairs of keys.
            #expect(CountedKey.comparisons.values.count - before <= 4 * count)
        }
        #expect(failures.isEmpty)
    }

    @Test func aTwentyThousandDeepValueIsComparedWithoutRecursion() async {
        let (old, new) = (Chain.of(depth: 20_000), Chain.of(depth: 20_000))
        let failures = await captureFailures {
            let store = makeStore(writing: Box(new), initialValues: ["value": old])
            store.send(.write)
        }
        #expect(failures.isEmpty)
        Chain.dismantle(old)
        Chain.dismantle(new)
    }

    @Test func aFailureMessageIsCappedAt64Kilobytes() async {
        let many = (0..<100).map { index in (0..<100).map { "element \($0) of list \(index)" } }
        let failures = await captureFailures {
            let store = makeStore(writing: Box(many))
            store.send(.write) { $0.set(value: many.map { $0.reversed() }, forKey: "value") }
        }
        let message = failures.first?.message ?? ""
        #expect(message.utf8.count <= 65_536)
        #expect(message.contains("more lines cut (the report is limited to "))
        #expect(message.hasSuffix("Fix the expectation closure, or the handler if the state is wrong."))
    }

    @Test func aReceiveFailureIsCappedAt64Kilobytes() async {
        let many = (0..<100).map { index in (0..<100).map { "element \($0) of list \(index)" } }
        let handler = StoreActionHandler<String, ListAction, Void> { _, action, _ in
            guard case .fetch = action else { return .none }
            return ActionEffect(id: "fetch") { .got(many) }
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
            store.send(.fetch)
            await store.receive(.got(many.map { $0.reversed() }))
        }
        let message = failures.first?.message ?? ""
        #expect(message.utf8.count <= 65_536)
        #expect(message.contains("more lines cut (the report is limited to "))
        #expect(
            message.hasSuffix("Fix the action passed to receive(_:), or the effect if it sends the wrong action."))
    }

    @Test func everyMessageRendersDiffsWithTheOneHelper() async {
        let (old, new) = (Array(0..<40), Array(0..<40).map { $0 == 20 ? -1 : $0 })
        let failures = await captureFailures {
            let store = makeStore(writing: Box(new))
            store.send(.write) { $0.set(value: old, forKey: "value") }
        }
        let debugOutput = LockedList<String>()
        let handler = StoreActionHandler<String, Int, Void> { state, _, _ in
            state.set(value: new, forKey: "value")
            return .none
        }
        Store(initialValues: ["value": old], actionHandler: handler).debug { debugOutput.append($0) }.handle(action: 1)
        let diff = ValueDiff(from: old, to: new)
        #expect(failures.first?.message.contains(diff.markedLines(indent: "  ").joined(separator: "\n")) == true)
        #expect(debugOutput.values.first?.contains(diff.markedLines(indent: "    ").joined(separator: "\n")) == true)
        #expect(diff.markedLines().contains("−   20,") && diff.markedLines().contains("+   -1,"))
    }
}
