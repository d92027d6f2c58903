/// The predicate rules: `OR`, `AND`, `NOT`, parenthesized groups, `TRUEPREDICATE`,
/// `FALSEPREDICATE` and comparisons with their modifiers, operators and options.
extension FormatParser {
    /// What a parenthesized group turned out to hold: a predicate, or a bare expression that the
    /// enclosing comparison continues (`(a + 1) > 2`).
    enum Parsed {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    /// A whole predicate (a bare expression is an error).
    mutating func parsePredicateNode() throws(PredicateSyntaxError) -> PredicateNode {
        switch try parseCompound(allowBare: false) {
        case .predicate(let predicate):
            return predicate
        case .expression:
            throw expected("a comparison operator")
        }
    }

    /// `or := and (OR and)*`, `and := not (AND not)*`, iteratively. With `allowBare`, a bare
    /// expression as the very first operand is returned as `.expression` for the caller to continue.
    mutating func parseCompound(allowBare: Bool) throws(PredicateSyntaxError) -> Parsed {
        var ors: [PredicateNode] = []
        while true {
            var ands: [PredicateNode] = []
            while true {
                switch try parseNegation(allowBare: allowBare && ors.isEmpty && ands.isEmpty) {
                case .expression(let expression):
                    return .expression(expression)
                case .predicate(let predicate):
                    ands.append(predicate)
                }
                guard isKeyword(.and) || isPunct(.andAnd) else { break }
                advance()
            }
            ors.append(ands.count == 1 ? ands[0] : .and(ands))
            guard isKeyword(.or) || isPunct(.orOr) else { break }
            advance()
        }
        return .predicate(ors.count == 1 ? ors[0] : .or(ors))
    }

    /// `not := (NOT | !)* primary`; the `NOT`s are counted, not recursed into.
    mutating func parseNegation(allowBare: Bool) throws(PredicateSyntaxError) -> Parsed {
        var count = 0
        while isKeyword(.not) || isPunct(.bang) {
            try enter(at: current.start)
            count += 1
            advance()
        }
        let parsed = try parsePredicatePrimary(allowBare: allowBare && count == 0)
        leave(count)
        guard count > 0 else { return parsed }
        guard case .predicate(var predicate) = parsed else { throw expected("a comparison operator") }
        for _ in 0..<count { predicate = .not(predicate) }
        return .predicate(predicate)
    }

    /// `( predicate )`, `TRUEPREDICATE`, `FALSEPREDICATE` or a comparison.
    mutating func parsePredicatePrimary(allowBare: Bool) throws(PredicateSyntaxError) -> Parsed {
        let token = current
        switch token.kind {
        case .keyword(.truePredicate):
            advance()
            return .predicate(.constant(true))
        case .keyword(.falsePredicate):
            advance()
            return .predicate(.constant(false))
        case .punct(.leftParen):
            try enter(at: token.start)
            advance()
            let inner = try parseCompound(allowBare: true)
            switch inner {
            case .predicate(let predicate):
                try expect(.rightParen, "')'")
                leave()
                return .predicate(predicate)
            case .expression(let expression):
                guard isPunct(.rightParen) else { throw expected("a comparison operator") }
                advance()
                leave()
                // The group was an expression: continue it (postfix, arithmetic), then compare.
                let left = try parseExpression(seed: expression)
                return try finishComparison(left: left, modifier: .direct, negated: false, allowBare: allowBare)
            }
        case .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none):
            advance()
            let left = try parseExpression()
            let modifier: ComparisonModifier = token.kind == .keyword(.all) ? .all : .any
            return try finishComparison(
                left: left, modifier: modifier, negated: token.kind == .keyword(.none),
                allowBare: false)
        default:
            let left = try parseExpression()
            return try finishComparison(left: left, modifier: .direct, negated: false, allowBare: allowBare)
        }
    }

    /// `operator options? expression` after the left side of a comparison.
    mutating func finishComparison(
        left: ExpressionNode, modifier: ComparisonModifier, negated: Bool,
        allowBare: Bool
    ) throws(PredicateSyntaxError) -> Parsed {
        guard let operatorType = try comparisonOperator() else {
            if allowBare && modifier == .direct && !negated { return .expression(left) }
            throw expected("a comparison operator")
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        let comparison = PredicateNode.comparison(
            ComparisonNode(
                left: left, right: right, operatorType: operatorType, modifier: modifier, options: options,
                customSelector: nil))
        return .predicate(negated ? .not(comparison) : comparison)
    }

    /// The operator at the current token, or nil when it is not one.
    func comparisonOperator() throws(PredicateSyntaxError) -> ComparisonOperator? {
        switch current.kind {
        case .punct(.equal): return .equalTo
        case .punct(.notEqual): return .notEqualTo
        case .punct(.less): return .lessThan
        case .punct(.lessEqual): return .lessThanOrEqualTo
        case .punct(.greater): return .greaterThan
        case .punct(.greaterEqual): return .greaterThanOrEqualTo
        case .keyword(.matches): return .matches
        case .keyword(.like): return .like
        case .keyword(.beginsWith): return .beginsWith
        case .keyword(.endsWith): return .endsWith
        case .keyword(.contains): return .contains
        case .keyword(.inKeyword): return .in
        case .keyword(.between): return .between
        case .keyword(.utiConformsTo), .keyword(.utiEquals):
            throw error("'\(current.text)' is not supported", at: current.start)
        case .punct(.assign):
            throw error("':=' assignment is not supported", at: current.start)
        default: return nil
        }
    }

    /// `[c]`, `[cd]`, `[n]`, `[l]` … after an operator.
    mutating func parseOptions() throws(PredicateSyntaxError) -> ComparisonOptions {
        guard isPunct(.leftBracket) else { return [] }
        advance()
        guard current.kind == .identifier else { throw expected("comparison options such as 'c' or 'cd'") }
        var options: ComparisonOptions = []
        var offset = current.start
        for character in current.text {
            switch character {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "n", "N": options.insert(.normalized)
            case "l", "L": options.insert(.localeSensitive)
            default:
                throw error("unknown comparison option '\(character)' (expected c, d, n or l)", at: offset)
            }
            offset += character.utf8.count
        }
        advance()
        try expect(.rightBracket, "']'")
        return options
    }
}
