import Foundation

/// The bytes of a persisted key's file: a header that says what the file holds, then the value's
/// JSON.
///
/// ```text
/// CacheStore persisted value 1
/// schema 2
/// length 17
/// fnv1a64 9c2e0b3f5d1a7e44
///
/// {"theme":"dark"}
/// ```
///
/// The length and the checksum make every truncation and every changed byte a reported error,
/// never a value: a JSON number cut short (`12` of `123`) still parses.
enum PersistedFileFormat {
    /// The first line, up to the format's version.
    static let magic = "CacheStore persisted value "
    /// The version of this layout; a file of a later one is left as it is.
    static let version = 1

    /// The file's bytes for a value's JSON under `schema`.
    static func file(schema: Int, payload: Data) -> Data {
        let covered = Data("\(magic)\(version)\nschema \(schema)\nlength \(payload.count)\n".utf8)
        var file = covered
        file.append(contentsOf: "fnv1a64 \(checksumText(of: covered, payload))\n\n".utf8)
        file.append(payload)
        return file
    }

    /// What a file's bytes hold: the schema and the value's JSON, or why they hold none.
    static func read(_ file: Data) -> Result<(schema: Int, payload: Data), PersistenceError.Cause> {
        if file.isEmpty { return .failure(.empty) }
        let magicBytes = Data(magic.utf8)
        guard file.starts(with: magicBytes.prefix(file.count)) else {
            return .failure(.corrupt("not a CacheStore file"))
        }
        guard let headerEnd = file.firstRange(of: Data("\n\n".utf8)) else {
            return .failure(.truncated("the header ends early"))
        }
        guard let header = String(data: file[..<headerEnd.lowerBound], encoding: .utf8) else {
            return .failure(.corrupt("the header is not text"))
        }
        let lines = header.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[0].hasPrefix(magic), let format = Int(lines[0].dropFirst(magic.count)),
            let schema = number(in: lines[1], named: "schema", orNegative: true),
            let length = number(in: lines[2], named: "length"), lines[3].hasPrefix("fnv1a64 ")
        else { return .failure(.corrupt("the header is malformed")) }
        let payload = file[headerEnd.upperBound...]
        if payload.count < length {
            return .failure(.truncated("\(payload.count) of its \(length) bytes of value"))
        }
        if payload.count > length { return .failure(.corrupt("\(payload.count - length) bytes after its value")) }
        // The checksum covers the header's first three lines too: a changed byte there is corruption,
        // never a file of a later layout or schema, which would be kept and never saved over.
        let covered = file[..<(file.startIndex + header.utf8.count - lines[3].utf8.count)]
        guard lines[3].dropFirst("fnv1a64 ".count) == checksumText(of: covered, payload) else {
            return .failure(.corrupt("its checksum does not match its contents"))
        }
        guard format >= 1 else { return .failure(.corrupt("the header is malformed")) }
        guard format <= version else { return .failure(.newerFormat(format)) }
        return .success((schema, Data(payload)))
    }

    private static func number(in line: Substring, named name: String, orNegative: Bool = false) -> Int? {
        guard line.hasPrefix(name + " "), let value = Int(line.dropFirst(name.count + 1)), orNegative || value >= 0
        else { return nil }
        return value
    }

    /// FNV-1a, 64 bits, of `parts` one after the other, in 16 hexadecimal digits: it tells a changed
    /// byte, not an attacker.
    static func checksumText(of parts: Data...) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            part.withUnsafeBytes { buffer in
                for byte in buffer {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01b3
                }
            }
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
