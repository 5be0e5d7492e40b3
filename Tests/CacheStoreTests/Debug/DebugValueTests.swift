import CacheStore
import Foundation
import Testing

/// A doubly linked list node: `previous` points back, so a naive dump walks the list forever.
final class ListNode: @unchecked Sendable {
    var value: Int
    var next: ListNode?
    weak var previous: ListNode?

    init(_ value: Int) {
        self.value = value
    }

    /// Nodes holding `values`, linked both ways; returns the head.
    static func list(_ values: [Int]) -> ListNode {
        let nodes = values.map(ListNode.init)
        for (node, next) in zip(nodes, nodes.dropFirst()) {
            node.next = next
            next.previous = node
        }
        return nodes[0]
    }
}

/// A tree node with a pointer to its parent.
final class TreeNode: @unchecked Sendable {
    var value: Int
    var children: [TreeNode] = []
    weak var parent: TreeNode?

    init(_ value: Int) {
        self.value = value
    }
}

/// Not `Equatable`: compared field by field.
struct CountedModel: Sendable {
    var id: Int
    var title: String
}

/// A dictionary key that counts how often keys are compared.
struct CountedKey: Hashable, @unchecked Sendable {
    static let comparisons = Recorder<Int>()
    var id: Int

    static func == (lhs: Self, rhs: Self) -> Bool {
        comparisons.append(lhs.id)
        return lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

/// Deep enough to overflow a recursive walk.
indirect enum Chain: Sendable {
    case end
    case link(Int, Chain)

    static func of(depth: Int, last: Int = 0) -> Chain {
        var chain = Chain.end
        for index in 0..<depth { chain = .link(index == 0 ? last : index, chain) }
        return chain
    }

    /// Releases the chain link by link: the runtime's own release of a long chain recurses.
    static func dismantle(_ chain: consuming Chain) {
        var current = chain
        while case .link(_, let next) = consume current { current = next }
    }
}

/// Two types of one name, in different places.
enum LegacyAPI {
    struct Post: Sendable {
        var id: Int
    }
}

enum CurrentAPI {
    struct Post: Sendable {
        var id: Int
    }
}

final class Payload: @unchecked Sendable {
    let n: Int

    init(n: Int) {
        self.n = n
    }
}

/// The debug report of one action that writes `new` under `.other`, which held `old` (absent when nil).
func debugReport(writing new: Any, over old: Any?) -> String {
    let box = UncheckedBox(new)
    let handler = StoreActionHandler<Key, Int, Void> { state, _, _ in
        state.set(value: box.value, forKey: .other)
        return .none
    }
    let output = Recorder<String>()
    let store = Store(initialValues: old.map { [.other: $0] } ?? [:], actionHandler: handler)
        .debug { output.append($0) }
    store.handle(action: 1)
    return output.values.first ?? ""
}

final class UncheckedBox: @unchecked Sendable {
    let value: Any

    init(_ value: Any) {
        self.value = value
    }
}

@Suite(.timeLimit(.minutes(2))) struct DebugValueTests {
    @Test func anObjectGraphWithBackPointersIsDumpedOncePerObject() {
        let report = debugReport(writing: ListNode.list([1, 20, 3]), over: ListNode.list([1, 2, 3]))
        #expect(
            report == """
                [CacheStore] Action: 1
                  ~ .other:
                      ListNode(
                        value: 1,
                        next: ListNode(
                −         value: 2,
                +         value: 20,
                          next: ListNode(value: 3, next: nil, previous: ListNode(↩︎)),
                          previous: ListNode(↩︎)
                        ),
                        previous: nil
                      )
                """)
    }

    @Test func aTreeWithParentPointersShowsEachNodeOnce() {
        func tree(_ leafValue: Int) -> TreeNode {
            let root = TreeNode(0)
            for index in 1...3 {
                let child = TreeNode(index)
                child.parent = root
                root.children.append(child)
                for leafIndex in 1...3 {
                    let leaf = TreeNode(index * 10 + leafIndex)
                    if index == 3 && leafIndex == 3 { leaf.value = leafValue }
                    leaf.parent = child
                    child.children.append(leaf)
                }
            }
            return root
        }
        let report = debugReport(writing: tree(99), over: tree(33))
        #expect(
            report.contains(
                """
                              TreeNode(value: 32, children: [], parent: TreeNode(↩︎)),
                −             TreeNode(value: 33, children: [], parent: TreeNode(↩︎))
                +             TreeNode(value: 99, children: [], parent: TreeNode(↩︎))
                            ],
                """))
        // Each node is shown once (twice for the one that changed); each parent pointer is a reference.
        #expect(report.components(separatedBy: "\n").count == 36)
        #expect(report.components(separatedBy: "parent: TreeNode(↩︎)").count - 1 == 13)
    }

    @Test func aHugeStringIsShownAroundTheDifferenceWithCounts() {
        let long = String(repeating: "a", count: 100_000)
        let report = debugReport(writing: long + "b", over: long)
        let window = String(repeating: "a", count: 40)
        #expect(
            report == """
                [CacheStore] Action: 1
                  ~ .other:
                −     "\(window)" (characters 99961–100000 of 100000)
                +     "\(window)b" (characters 99961–100001 of 100001)
                """)
    }

    @Test func dictionariesOfNonEquatableValuesCompareInLinearTime() {
        func models(_ order: [Int], capacity: Int) -> [CountedKey: CountedModel] {
            // Different capacities: the two dictionaries keep their entries in different orders.
            var models = [CountedKey: CountedModel](minimumCapacity: capacity)
            for id in order {
                models[CountedKey(id: id)] = CountedModel(id: id, title: String(repeating: "t", count: 20) + "\(id)")
            }
            return models
        }
        let count = 300
        let (old, new) = (
            models(Array(0..<count), capacity: count * 8), models(Array((0..<count).reversed()), capacity: count)
        )
        let before = CountedKey.comparisons.values.count
        let report = debugReport(writing: new, over: old)
        #expect(report == "[CacheStore] Action: 1\n  (no state change)")
        // One key lookup per entry (a few comparisons more where hashes collide, which depends on
        // the process's hash seed: 616 were seen once): a quadratic search compared ~count² / 2 pairs.
        #expect(CountedKey.comparisons.values.count - before <= 4 * count)
    }

    @Test func aTwentyThousandDeepValueNeitherCrashesNorRecurses() async {
        let reports = await offThePool {
            let old = Chain.of(depth: 20_000)
            let same = Chain.of(depth: 20_000)
            let changed = Chain.of(depth: 20_000, last: -1)
            defer { for chain in [old, same, changed] { Chain.dismantle(chain) } }
            return [debugReport(writing: same, over: old), debugReport(writing: changed, over: old)]
        }
        #expect(reports[0] == "[CacheStore] Action: 1\n  (no state change)")
        #expect(
            reports[1].hasSuffix(
                "  (the values differ at .link.1.link.1.link.1.link.1.link.1.link.1… (40000 steps deep), past what the dump shows)"
            ))
        #expect(reports[1].utf8.count < 10_000)
    }

    @Test func nanWrittenBackIsNoChange() {
        #expect(debugReport(writing: Double.nan, over: Double.nan) == "[CacheStore] Action: 1\n  (no state change)")
        #expect(debugReport(writing: [Double.nan], over: [Double.nan]) == "[CacheStore] Action: 1\n  (no state change)")
    }

    @Test func nanInASetIsEqualToNaN() {
        #expect(
            debugReport(writing: Set([Double.nan, 1]), over: Set([Double.nan, 1]))
                == "[CacheStore] Action: 1\n  (no state change)")
        #expect(debugReport(writing: Set([Double.nan, 2]), over: Set([Double.nan, 1])).contains("~ .other"))
    }

    @Test func typesOfTheSameNameAreNamedInFull() {
        #expect(
            debugReport(writing: CurrentAPI.Post(id: 1), over: LegacyAPI.Post(id: 1)) == """
                [CacheStore] Action: 1
                  ~ .other:
                      Post(id: 1)
                      (types differ: − CacheStoreTests.LegacyAPI.Post, + CacheStoreTests.CurrentAPI.Post)
                """)
    }

    @Test func aDictionaryEntryPastTheFirstHundredIsShownAmidItsNeighbours() {
        let old = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ($0, $0) })
        var new = old
        new[500] = -1
        let lines = debugReport(writing: new, over: old).components(separatedBy: "\n")
        #expect(lines.contains("−       500: 500,") && lines.contains("+       500: -1,"))
        #expect(lines.contains("        … 397 before,"))
        #expect(!lines.contains { $0.contains("past what the dump shows") })
    }

    @Test func largeSetsShowTheSameFirstElementsWhateverTheirOrder() {
        let old = Set(0..<1_000)
        var new = Set<Int>(minimumCapacity: 4_000)
        for number in (0..<999).reversed() { new.insert(number) }
        new.insert(1_000)
        let lines = debugReport(writing: new, over: old).components(separatedBy: "\n")
        // Sorted by text, both show 0, 1, 10, 100, …: only 1000 is new among the first hundred.
        #expect(lines.filter { $0.hasPrefix("+") } == ["+       1000,"])
        #expect(lines.filter { $0.hasPrefix("−") }.count == 1)
    }

    @Test func valuesThatDifferOnlyByTypeNameTheTypes() {
        #expect(
            debugReport(writing: 32, over: 32.0) == """
                [CacheStore] Action: 1
                  ~ .other:
                −     32.0
                +     32
                      (types differ: − Double, + Int)
                """)
        #expect(
            debugReport(writing: ["a"[...]], over: ["a"]) == """
                [CacheStore] Action: 1
                  ~ .other:
                      ["a"]
                      (types differ: − Array<String>, + Array<Substring>)
                """)
    }

    @Test func instancesUnequalOnlyByIdentityAreSaidToBe() {
        let (old, new) = (Payload(n: 1), Payload(n: 1))
        #expect(
            debugReport(writing: new, over: old) == """
                [CacheStore] Action: 1
                  ~ .other:
                      Payload(n: 1)
                      (different instances of Payload, which compares by identity: \
                − \(ObjectIdentifier(old)), + \(ObjectIdentifier(new)))
                """)
    }

    @Test func aReportIsCappedAt64KilobytesByDefault() {
        let handler = StoreActionHandler<Key, Int, Void> { state, _, _ in
            for index in 0..<200 {
                state.set(
                    value: (0..<100).map { "value \($0) of a long list under key \(index)" }, forKey: .item(index))
            }
            return .none
        }
        let output = Recorder<String>()
        let store = Store(initialValues: [:], actionHandler: handler).debug { output.append($0) }
        store.handle(action: 1)
        let report = output.values.first ?? ""
        #expect(report.utf8.count <= StateChangeReport.defaultMaxLength)
        #expect(report.utf8.count > StateChangeReport.defaultMaxLength - 1_000)
        #expect(
            report.hasSuffix("more changed keys not shown")
                || report.contains("more lines cut (the report is limited to 65536 bytes)"))
    }

    @Test func aStoresDebugCapCanBeRaised() {
        let handler = StoreActionHandler<Int, Int, Void> { state, action, _ in
            for key in 0..<200 { state.set(value: (0..<100).map { "value \($0) of \(action)" }, forKey: key) }
            return .none
        }
        let capped = Recorder<String>()
        let raised = Recorder<String>()
        Store(initialValues: [:], actionHandler: handler).debug { capped.append($0) }.handle(action: 1)
        Store(initialValues: [:], actionHandler: handler)
            .debug(maxReportLength: 10_000_000) { raised.append($0) }
            .handle(action: 1)
        #expect((capped.values.first?.utf8.count ?? 0) <= StateChangeReport.defaultMaxLength)
        #expect((raised.values.first?.utf8.count ?? 0) > 200 * 100 * 15)
        #expect(raised.values.first?.contains("not shown") == false)
    }

    @Test func theReportCapCanBeRaised() {
        let changes = (0..<200).map { index in
            StateChange(key: index, before: nil, after: (0..<100).map { "value \($0) of a long list" })
        }
        let capped = StateChangeReport.debugText(action: 1, changes: changes)
        let raised = StateChangeReport.debugText(action: 1, changes: changes, maxLength: 10_000_000)
        #expect(capped.utf8.count <= 65_536)
        #expect(raised.utf8.count > 200 * 100 * 20)
        #expect(!raised.contains("not shown") && !raised.contains("more lines cut"))
    }
}
