extension Set {
    /// An empty set with room for `count` elements, its table at most about a third full once
    /// they are in (a plain `minimumCapacity` leaves it up to three quarters full).
    ///
    /// For the sets of objects and IDs a save's notifications carry: a set compares each new
    /// element with every element on its probe path, and for `NSObject`s that is a call to
    /// `isEqual(_:)` with the element boxed as `Any?`. A sparser table meets fewer of them: for
    /// 10^5 new objects, about a fifth of a compare an insertion rather than four fifths, for a
    /// table of twice the size (8 bytes a slot), dropped when the notification is.
    static func sparse(capacity count: Int) -> Set { Set(minimumCapacity: count * 2) }
}
