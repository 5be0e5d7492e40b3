// Checks that every public symbol of a module is documented, from the symbol graph the compiler
// emits, and writes the module's own symbols (without the ones it re-exports) for `docc convert`.
//
//   documentation-audit GRAPHS_DIR OUTPUT_DIR MODULE...   (run from the package's root)
//   documentation-audit --self-test FIXTURE_DIR
//
// A symbol is the module's own when it is declared in Sources/MODULE/. Each needs a doc comment
// of its own (not one inherited from a protocol) whose first line is a summary; each parameter
// (by its internal name) under `- Parameter x:` or `- Parameters:`; `- Returns:` when a function returns a value;
// `- Throws:` when it throws; and a ```swift example when it is declared at the top level. Each must
// also be listed under a `## Topics` heading, in Sources/MODULE/Documentation.docc or in the doc
// comment of its type, so that the documentation groups every symbol rather than leaving docc to
// list the forgotten ones by kind.
import Foundation

/// A symbol graph, decoded as far as the audit needs and kept whole for the filtered copy.
struct SymbolGraph {
    var raw: [String: JSONValue]

    var module: String { raw["module"]?["name"]?.string ?? "" }
    var symbols: [Symbol] { raw["symbols"]?.array?.map(Symbol.init) ?? [] }

    /// This graph with only `kept` of its symbols, and the relationships that start from them.
    func keeping(_ kept: [Symbol]) -> SymbolGraph {
        let ids = Set(kept.map(\.preciseIdentifier))
        var copy = self
        copy.raw["symbols"] = .array(kept.map(\.raw))
        copy.raw["relationships"] = .array(
            (raw["relationships"]?.array ?? []).filter { ids.contains($0["source"]?.string ?? "") })
        return copy
    }
}

struct Symbol {
    var raw: JSONValue

    var preciseIdentifier: String { raw["identifier"]?["precise"]?.string ?? "" }
    var kind: String { raw["kind"]?["identifier"]?.string ?? "" }
    var path: [String] { raw["pathComponents"]?.array?.compactMap(\.string) ?? [] }
    var fileURI: String { raw["location"]?["uri"]?.string ?? "" }
    var line: Int { (raw["location"]?["position"]?["line"]?.int ?? 0) + 1 }
    var docModule: String? { raw["docComment"]?["module"]?.string }
    var docLines: [String] { raw["docComment"]?["lines"]?.array?.compactMap { $0["text"]?.string } ?? [] }
    var parameterNames: [String] {
        raw["functionSignature"]?["parameters"]?.array?.compactMap { ($0["internalName"] ?? $0["name"])?.string } ?? []
    }
    var returnType: String {
        raw["functionSignature"]?["returns"]?.array?.compactMap { $0["spelling"]?.string }.joined() ?? ""
    }
    /// Whether the declaration itself throws (a `throws` inside a closure parameter's type doesn't count).
    var isThrowing: Bool {
        var depth = 0
        for fragment in raw["declarationFragments"]?.array ?? [] {
            let spelling = fragment["spelling"]?.string ?? ""
            if fragment["kind"]?.string == "text" {
                depth += spelling.filter { $0 == "(" }.count - spelling.filter { $0 == ")" }.count
            } else if depth == 0, fragment["kind"]?.string == "keyword", ["throws", "rethrows"].contains(spelling) {
                return true
            }
        }
        return false
    }
}

indirect enum JSONValue: Codable {
    case string(String), number(Double), bool(Bool), null
    case array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self { Int(value) } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
}

/// What the audit found for one module.
struct ModuleAudit {
    var module: String
    var checked = 0
    var parameters = 0
    var returns = 0
    var throwing = 0
    var examples = 0
    var problems: [String] = []

    var summary: String {
        "\(module): \(checked) public symbols, \(checked - problems.count) fully documented"
            + " (\(parameters) parameters, \(returns) returns, \(throwing) throws clauses,"
            + " \(examples) top-level examples)"
    }
}

func audit(_ graph: SymbolGraph, curated: Set<[String]>) -> (ModuleAudit, ownSymbols: [Symbol]) {
    let module = graph.module
    var result = ModuleAudit(module: module)
    let own = graph.symbols.filter { $0.fileURI.contains("/Sources/\(module)/") }
    let curated = own.reduce(into: curated) { paths, symbol in
        paths.formUnion(topicLinks(in: symbol.docLines, page: symbol.path, module: module))
    }
    for symbol in own.sorted(by: { ($0.fileURI, $0.line) < ($1.fileURI, $1.line) }) {
        result.checked += 1
        var missing = missingDocumentation(of: symbol, in: module, result: &result)
        if !curated.contains(symbol.path) { missing.append("a link under a `## Topics` heading of its catalog") }
        if !missing.isEmpty {
            let file = symbol.fileURI.components(separatedBy: "/Sources/").last ?? symbol.fileURI
            let name = symbol.path.joined(separator: ".")
            result.problems.append("Sources/\(file):\(symbol.line): \(name) lacks \(missing.joined(separator: ", "))")
        }
    }
    return (result, own)
}

func missingDocumentation(of symbol: Symbol, in module: String, result: inout ModuleAudit) -> [String] {
    guard symbol.docModule == module, let summary = symbol.docLines.first,
        !summary.trimmingCharacters(in: .whitespaces).isEmpty
    else { return ["a doc comment starting with a summary line"] }
    var missing: [String] = []
    let lines = symbol.docLines
    let documented = documentedParameterNames(lines)
    for name in symbol.parameterNames {
        if documented.contains(name) { result.parameters += 1 } else { missing.append("`- Parameter \(name):`") }
    }
    let isFunction = symbol.kind.hasSuffix("method") || symbol.kind == "swift.func"
    if isFunction, !["", "()", "Void"].contains(symbol.returnType) {
        if has("- Returns:", in: lines) { result.returns += 1 } else { missing.append("`- Returns:`") }
    }
    if symbol.isThrowing {
        if has("- Throws:", in: lines) { result.throwing += 1 } else { missing.append("`- Throws:`") }
    }
    if symbol.path.count == 1 {
        if has("```swift", in: lines) { result.examples += 1 } else { missing.append("a ```swift example") }
    }
    return missing
}

func has(_ prefix: String, in lines: [String]) -> Bool {
    lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }
}

/// Names under `- Parameter name:`, or in the list under `- Parameters:`.
func documentedParameterNames(_ lines: [String]) -> Set<String> {
    var names: Set<String> = []
    var inParameterList = false
    for line in lines {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let isIndented = line.first == " "
        if trimmed.hasPrefix("- Parameters:") {
            inParameterList = true
        } else if trimmed.hasPrefix("- Parameter "), let colon = trimmed.firstIndex(of: ":") {
            names.insert(String(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 12)..<colon]))
            inParameterList = false
        } else if inParameterList, isIndented, trimmed.hasPrefix("- "), let colon = trimmed.firstIndex(of: ":") {
            names.insert(String(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 2)..<colon]))
        } else if !isIndented, !trimmed.isEmpty {
            inParameterList = false
        }
    }
    return names
}

/// The symbol paths that a catalog's `## Topics` sections link to.
func curatedPaths(catalog: URL, module: String) -> Set<[String]> {
    let files = FileManager.default.enumerator(at: catalog, includingPropertiesForKeys: nil)?
        .compactMap { $0 as? URL }.filter { $0.pathExtension == "md" } ?? []
    return files.reduce(into: []) { paths, file in
        let lines = ((try? String(contentsOf: file, encoding: .utf8)) ?? "").components(separatedBy: "\n")
        var page: [String] = []
        if let title = lines.first, title.hasPrefix("# ``"), title.hasSuffix("``") {
            page = symbolPath(title.dropFirst(4).dropLast(2), module: module)
        }
        paths.formUnion(topicLinks(in: lines, page: page, module: module))
    }
}

/// The symbol paths linked to under a `## Topics` heading of `lines`, a page's text. A link is
/// relative to the page it is on (a `Store` page lists `handle(action:)`), and may end in a
/// disambiguation (`-2s8eh`, `-(_:_:)`), which is dropped: overloads share their path.
func topicLinks(in lines: [String], page: [String], module: String) -> Set<[String]> {
    var paths: Set<[String]> = []
    var inTopics = false
    for line in lines.map({ $0.trimmingCharacters(in: .whitespaces) }) {
        if line.hasPrefix("## ") { inTopics = line == "## Topics" }
        guard inTopics, line.hasPrefix("- ``"), line.hasSuffix("``") else { continue }
        var link = symbolPath(line.dropFirst(4).dropLast(2), module: module)
        if let last = link.last, let dash = last.range(of: "-", options: .backwards),
            !last[dash.upperBound...].contains(":") || last[dash.upperBound...].hasPrefix("(")
        {
            link[link.count - 1] = String(last[..<dash.lowerBound])
        }
        paths.insert(page + link)
        paths.insert(link)
    }
    return paths
}

func symbolPath(_ link: Substring, module: String) -> [String] {
    let components = link.split(separator: "/").map(String.init)
    return components.first == module ? Array(components.dropFirst()) : components
}

func loadGraph(_ url: URL) throws -> SymbolGraph {
    SymbolGraph(raw: try JSONDecoder().decode([String: JSONValue].self, from: Data(contentsOf: url)))
}

/// Audits each module, writes its own symbols to OUTPUT/MODULE/, and returns whether all passed.
func auditModules(graphs: URL, output: URL, modules: [String]) throws -> Bool {
    var passed = true
    for module in modules {
        let graph = try loadGraph(graphs.appendingPathComponent("\(module).symbols.json"))
        let catalog = URL(fileURLWithPath: "Sources/\(module)/Documentation.docc")
        let (result, own) = audit(graph, curated: curatedPaths(catalog: catalog, module: module))
        let directory = output.appendingPathComponent(module)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try JSONEncoder().encode(graph.keeping(own).raw).write(to: directory.appendingPathComponent("\(module).symbols.json"))
        print(result.summary)
        for problem in result.problems { print("error: \(problem)") }
        passed = passed && result.problems.isEmpty && result.checked > 0
    }
    return passed
}

/// Compiles the fixture, whose doc comments and catalog have known gaps, and checks that the audit
/// reports exactly those.
func selfTest(fixture: URL) throws -> Bool {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("documentation-audit-\(UUID())")
    let sources = root.appendingPathComponent("Sources/AuditFixture")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("Sources"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.copyItem(at: fixture, to: sources)
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compiler.arguments = [
        "swiftc", "-parse-as-library", "-emit-module", "-module-name", "AuditFixture",
        "-emit-module-path", root.appendingPathComponent("AuditFixture.swiftmodule").path,
        "-emit-symbol-graph", "-emit-symbol-graph-dir", root.path,
        sources.appendingPathComponent("AuditFixture.swift").path,
    ]
    try compiler.run()
    compiler.waitUntilExit()
    guard compiler.terminationStatus == 0 else { return false }
    let graph = try loadGraph(root.appendingPathComponent("AuditFixture.symbols.json"))
    let catalog = sources.appendingPathComponent("Documentation.docc")
    let (result, _) = audit(graph, curated: curatedPaths(catalog: catalog, module: "AuditFixture"))
    let expected = expectedFixtureProblems(source: fixture.appendingPathComponent("AuditFixture.swift"))
    guard result.problems == expected else {
        print("error: the audit's self-test expected:\n  \(expected.joined(separator: "\n  "))")
        print("but found:\n  \(result.problems.joined(separator: "\n  "))")
        return false
    }
    print("audit self-test: the fixture's \(expected.count) known gaps are all reported, and nothing else")
    return true
}

/// The fixture states what the audit must report, in `// expect: ` comments on the declarations' lines.
func expectedFixtureProblems(source: URL) -> [String] {
    let text = (try? String(contentsOf: source, encoding: .utf8)) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
        guard let range = line.range(of: "// expect: ") else { return nil }
        return "Sources/AuditFixture/AuditFixture.swift:\(index + 1): \(line[range.upperBound...])"
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    let passed: Bool
    if arguments.count == 2, arguments[0] == "--self-test" {
        passed = try selfTest(fixture: URL(fileURLWithPath: arguments[1]))
    } else if arguments.count >= 3 {
        passed = try auditModules(
            graphs: URL(fileURLWithPath: arguments[0]),
            output: URL(fileURLWithPath: arguments[1]),
            modules: Array(arguments[2...])
        )
    } else {
        print("usage: documentation-audit GRAPHS_DIR OUTPUT_DIR MODULE... | --self-test FIXTURE_DIR")
        passed = false
    }
    exit(passed ? 0 : 1)
} catch {
    print("error: \(error)")
    exit(1)
}
