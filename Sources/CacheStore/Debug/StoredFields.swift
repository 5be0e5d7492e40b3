/// The stored fields of a struct or tuple type — where each lies and of what type — read once per type
/// from the Swift runtime's field metadata, so that a value's fields can be reached without a `Mirror`
/// (which looks each field's type up by its mangled name, microseconds a field, on every access).
///
/// The standard library reads the same facts for its `_forEachField(of:options:body:)`, which is
/// SPI that release toolchains do not offer; these are the runtime functions it calls, exported by
/// every Swift runtime since 5.2 (macOS 10.15.4, iOS 13.4). A type whose facts are not plain — not a
/// struct or tuple, a `weak` or `unowned` field (whose storage is not a strong reference), fields
/// without metadata — has no ``StoredFields``, and its values are compared through `Mirror`.
struct StoredFields {
    struct Field {
        /// Bytes from the start of the value.
        var offset: Int
        var type: any Any.Type
    }

    var fields: [Field]

    /// The fields of `type`; `nil` when it is not a struct or tuple, or when a field is not a plain,
    /// strongly held value described by its metadata.
    init?(of type: any Any.Type) {
        let kind = runtimeMetadataKind(type)
        guard kind == Self.structKind || kind == Self.tupleKind else { return nil }
        let count = runtimeFieldCount(type)
        // A struct built without reflection metadata reports no fields; an empty one is left to
        // `Mirror` too (it compares such values by their descriptions).
        guard count > 0 else { return nil }
        var fields: [Field] = []
        fields.reserveCapacity(count)
        for index in 0..<count {
            var metadata = FieldMetadata()
            let fieldType = runtimeFieldType(type, index: index, metadata: &metadata)
            metadata.freeName?(metadata.name)
            // A field whose type the runtime could not find reads as `()`.
            guard metadata.isStrong, fieldType != Void.self else { return nil }
            fields.append(Field(offset: runtimeFieldOffset(type, index: index), type: fieldType))
        }
        self.fields = fields
    }

    /// `MetadataKind::Struct` and `MetadataKind::Tuple` of the runtime's `MetadataKind.def`.
    private static let structKind: UInt = 0x200
    private static let tupleKind: UInt = 0x301
}

/// What the runtime tells of one field besides its type (the runtime's `_FieldReflectionMetadata`).
private struct FieldMetadata {
    var name: UnsafePointer<CChar>?
    var freeName: (@convention(c) (UnsafePointer<CChar>?) -> Void)?
    /// `false` for `weak`, `unowned` and `unowned(unsafe)` fields.
    var isStrong = false
    var isVar = false
}

@_silgen_name("swift_getMetadataKind")
private func runtimeMetadataKind(_ type: any Any.Type) -> UInt

@_silgen_name("swift_reflectionMirror_recursiveCount")
private func runtimeFieldCount(_ type: any Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func runtimeFieldOffset(_ type: any Any.Type, index: Int) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func runtimeFieldType(
    _ type: any Any.Type, index: Int, metadata: UnsafeMutablePointer<FieldMetadata>
) -> any Any.Type
