import CacheStore
import Dispatch
import Testing

/// Not `Equatable`, with parts of every kind the quick check reads.
private struct Article: Sendable {
    var id: Int
    var title: String
    var tags: [String]
    var author: Writer?
    var scores: [String: Double]
    var pair: (rank: Int, writer: Writer)
}

private struct Writer: Sendable {
    var name: String
}

private final class Shared: Equatable, @unchecked Sendable {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }

    static func == (lhs: Shared, rhs: Shared) -> Bool { lhs.value == rhs.value }
}

private final class Opaque: @unchecked Sendable {}

/// Fields whose storage is not a strong reference: never read as one.
private struct WeakAndUnowned: @unchecked Sendable {
    weak var weakly: Shared?
    unowned var unownedly: Shared
    var n: Int
}

private struct Reading: Sendable {
    var value: Double
}

private struct Boxed: @unchecked Sendable {
    var content: Any
}

private struct Owner: Sendable {
    var object: Opaque
}

/// A type that holds itself: values of any depth.
private struct Node: Sendable {
    var value: Int
    var children: [Node]

    static func chain(depth: Int, last: Int = 0) -> Node {
        var node = Node(value: last, children: [])
        for index in 1..<depth { node = Node(value: index, children: [node]) }
        return node
    }

    /// Releases the chain level by level: the runtime's own release of a deep chain recurses.
    static func dismantle(_ node: consuming Node) {
        var current = node
        while let child = current.children.popLast() { current = child }
    }
}

private struct Masked: CustomReflectable, Sendable {
    var secret: Int
    var customMirror: Mirror { Mirror(self, children: []) }
}

private func article(_ id: Int, tag: String = "swift", score: Double = 1) -> Article {
    // Strings made afresh, so that equal articles do not share their buffers.
    Article(
        id: id, title: "Title number \(id) of the list", tags: ["news", "\(tag)"],
        author: Writer(name: "Writer number \(id)"), scores: ["views \(id)": score],
        pair: (rank: id, writer: Writer(name: "Writer number \(id)")))
}

@Suite(.timeLimit(.minutes(2))) struct QuickEqualityTests {
    @Test func structsOfEveryPartKindAreComparedWithoutMirror() {
        #expect(QuickEquality.of(Article.self) != nil)
        #expect(QuickEquality.of([Int: Article].self) != nil)
        #expect(QuickEquality.of([Article].self) != nil)
        #expect(QuickEquality.of(Article.self)?.holds(opening: article(1), article(1)) == true)
        #expect(QuickEquality.of([Int: Article].self)?.holds(opening: [1: article(1)], [1: article(1)]) == true)
    }

    @Test func itNeverCallsUnequalValuesEqual() {
        let check = QuickEquality.of(Article.self)
        #expect(check?.holds(opening: article(1), article(2)) == false)
        #expect(check?.holds(opening: article(1), article(1, tag: "go")) == false)
        #expect(check?.holds(opening: article(1), article(1, score: 2)) == false)
        var anonymous = article(1)
        anonymous.author = nil
        #expect(check?.holds(opening: article(1), anonymous) == false)
        #expect(!isStructurallyEqual(article(1), anonymous))
        #expect(firstDifference(article(1), article(1, tag: "go"))?.pathText == ".tags[1]")
        let many = Dictionary(uniqueKeysWithValues: (0..<500).map { ($0, article($0)) })
        var changed = many
        changed[250] = article(250, score: 3)
        #expect(firstDifference(many, changed)?.pathText == #"[250].scores["views 250"]"#)
    }

    @Test func weakAndUnownedFieldsAreLeftToTheGeneralComparison() {
        let (first, second, third) = (Shared(1), Shared(1), Shared(2))
        #expect(QuickEquality.of(WeakAndUnowned.self) == nil)
        #expect(
            isStructurallyEqual(
                WeakAndUnowned(weakly: first, unownedly: first, n: 1),
                WeakAndUnowned(weakly: second, unownedly: second, n: 1)))
        #expect(
            !isStructurallyEqual(
                WeakAndUnowned(weakly: first, unownedly: first, n: 1),
                WeakAndUnowned(weakly: third, unownedly: first, n: 1)))
        withExtendedLifetime((first, second, third)) {}
    }

    @Test func nanAndSignedZeroFollowTheRules() {
        #expect(isStructurallyEqual(Reading(value: .nan), Reading(value: .nan)))
        #expect(isStructurallyEqual([Reading(value: .nan)], [Reading(value: .nan)]))
        #expect(isStructurallyEqual(Reading(value: 0), Reading(value: -0.0)))
        #expect(!isStructurallyEqual(Reading(value: 1), Reading(value: 2)))
    }

    @Test func partsOnlyComparableByBytesFallBackToTheGeneralComparison() {
        #expect(
            isStructurallyEqual(
                Boxed(content: [1, 2].map { "\($0) of many" }), Boxed(content: ["1 of many", "2 of many"])))
        #expect(!isStructurallyEqual(Boxed(content: [1]), Boxed(content: [2])))
        let object = Opaque()
        #expect(isStructurallyEqual(Owner(object: object), Owner(object: object)))
        #expect(!isStructurallyEqual(Owner(object: object), Owner(object: Opaque())))
        #expect(isStructurallyEqual(Masked(secret: 1), Masked(secret: 1)))
        #expect(QuickEquality.of(Masked.self) == nil)
    }

    @Test func checksAreMadeAndReadFromManyThreadsAtOnce() async {
        struct Fresh {
            var id: Int
            var names: [String]
        }
        let equal = Recorder<Bool>()
        await offThePool {
            onThreads(8) { index in
                let make = { Fresh(id: index, names: ["name \(index) of a list long enough"]) }
                equal.append(isStructurallyEqual([index: make()], [index: make()]))
            }
        }
        #expect(equal.values == Array(repeating: true, count: 8))
    }

    @Test func aTypeThatHoldsItselfIsComparedAtAnyDepth() async {
        let (equal, differencePathLength) = await offThePool {
            let (old, same, changed) = (
                Node.chain(depth: 20_000), Node.chain(depth: 20_000), Node.chain(depth: 20_000, last: 1)
            )
            defer { for node in [old, same, changed] { Node.dismantle(node) } }
            return (isStructurallyEqual(old, same), firstDifference(old, changed)?.path.count)
        }
        #expect(equal)
        #expect(differencePathLength == 2 * 19_999 + 1)
    }
}
