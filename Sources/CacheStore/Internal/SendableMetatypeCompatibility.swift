#if compiler(<6.2)
    /// Compilers before Swift 6.2 have no `SendableMetatype` (SE-0470): every metatype is sendable there.
    public typealias SendableMetatype = Any
#endif
