/// The expression rules: set operators, arithmetic by precedence climbing, unary minus, postfix
/// key paths and indexes, and the primaries (literals, key paths, variables, specifiers,
/// aggregates, function calls, `SUBQUERY`, `TERNARY`, `CAST`, `FUNCTION`).
extension FormatParser {
    /// A binary expression operator with its precedence (higher binds tighter).
    private enum BinaryOperator {
        case set(ExpressionNode.SetOperation)
        case function(String, precedence: Int)

        var precedence: Int {
            switch self {
            case .set: return 1
            case .function(_, let precedence): return precedence
            }
        }

        func combine(_ left: ExpressionNode, _ right: ExpressionNode) -> ExpressionNode {
            switch self {
            case .set(let operation): return .set(operation, left, right)
            case .function(let name, _): return .function(name: name, arguments: [left, right])
            }
        }
    }

    private func binaryOperator() -> BinaryOperator? {
        switch current.kind {
        case .keyword(.union): return .set(.union)
        case .keyword(.intersect): return .set(.intersect)
        case .keyword(.minus): return .set(.minus)
        case .punct(.plus): return .function("add:to:", precedence: 2)
        case .punct(.minus): return .function("from:subtract:", precedence: 2)
        case .punct(.star): return .function("multiply:by:", precedence: 3)
        case .punct(.slash): return .function("divide:by:", precedence: 3)
        case .punct(.starStar): return .function("raise:toPower:", precedence: 4)
        default: return nil
        }
    }

    /// A whole expression. `seed`, when given, is an already-parsed primary to continue from.
    mutating func parseExpression(seed: ExpressionNode? = nil) throws(PredicateSyntaxError) -> ExpressionNode {
        try parseBinary(minimumPrecedence: 1, seed: seed)
    }

    /// Precedence climbing; each operator in a chain counts as a level of nesting because it
    /// deepens the tree.
    private mutating func parseBinary(minimumPrecedence: Int, seed: ExpressionNode?) throws(PredicateSyntaxError)
        -> ExpressionNode
    {
        var left = try parseUnary(seed: seed)
        var chain = 0
        while let op = binaryOperator(), op.precedence >= minimumPrecedence {
            try enter(at: current.start)
            chain += 1
            advance()
            let right = try parseBinary(minimumPrecedence: op.precedence + 1, seed: nil)
            left = op.combine(left, right)
        }
        leave(chain)
        return left
    }

    /// `-`* postfix; a `-` directly before a number literal folds into a negative constant.
    private mutating func parseUnary(seed: ExpressionNode?) throws(PredicateSyntaxError) -> ExpressionNode {
        if let seed { return try parsePostfix(seed: seed) }
        var minuses = 0
        while isPunct(.minus) {
            try enter(at: current.start)
            minuses += 1
            advance()
        }
        var operand: ExpressionNode
        if minuses > 0, case .number(let number) = current.kind, !isPunct(.dot, peek()), !isPunct(.leftBracket, peek()) {
            advance()
            operand = .constant(ConstantValue(number.value(negated: true)))
            minuses -= 1
            leave()
        } else {
            operand = try parsePostfix(seed: nil)
        }
        for _ in 0..<minuses {
            operand = .function(name: "from:subtract:", arguments: [.constant(ConstantValue(0)), operand])
        }
        leave(minuses)
        return operand
    }

    /// `primary ( . key | [ index ] )*`.
    private mutating func parsePostfix(seed: ExpressionNode?) throws(PredicateSyntaxError) -> ExpressionNode {
        var base: ExpressionNode
        if let seed { base = seed } else { base = try parsePrimary() }
        var chain = 0
        while true {
            if isPunct(.dot) {
                advance()
                let key = current
                switch key.kind {
                case .identifier:
                    advance()
                    switch base {
                    case .keyPath(let path):
                        base = .keyPath(KeyPathComponents(components: path.components + [key.text]))
                    case .evaluatedObject:
                        base = .keyPath(KeyPathComponents(components: [key.text]))
                    case .function(name: "valueForKeyPath:", arguments: let arguments)
                    where arguments.count == 2 && Self.stringConstant(arguments[1]) != nil:
                        let path = (Self.stringConstant(arguments[1]) ?? "") + "." + key.text
                        base = .function(name: "valueForKeyPath:", arguments: [arguments[0], .constant(ConstantValue(path))])
                    default:
                        try enter(at: key.start)
                        chain += 1
                        base = .function(name: "valueForKeyPath:", arguments: [base, .constant(ConstantValue(key.text))])
                    }
                case .variable:
                    advance()
                    try enter(at: key.start)
                    chain += 1
                    base = .function(name: "valueForKeyPath:", arguments: [base, .variable(key.text)])
                case .keyword:
                    throw error(
                        "expected a key after '.', found reserved word \(describe(key)) (write #\(key.text) to use it as a key)",
                        at: key.start)
                default:
                    throw expected("a key after '.'")
                }
            } else if isPunct(.leftBracket) {
                try enter(at: current.start)
                chain += 1
                advance()
                let index: ExpressionNode
                if isPunct(.rightBracket, peek()), case .keyword(let keyword) = current.kind,
                    let symbol = ExpressionNode.IndexSymbol(rawValue: keyword.rawValue)
                {
                    advance()
                    index = .symbol(symbol)
                } else {
                    index = try parseExpression()
                }
                try expect(.rightBracket, "']'")
                base = .function(name: "objectFrom:withIndex:", arguments: [base, index])
            } else {
                break
            }
        }
        leave(chain)
        return base
    }

    static func stringConstant(_ expression: ExpressionNode) -> String? {
        if case .constant(let constant) = expression { return constant.value as? String }
        return nil
    }

    /// Literals, key paths, variables, specifiers, groups, aggregates and calls.
    private mutating func parsePrimary() throws(PredicateSyntaxError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .number(let number):
            advance()
            return .constant(ConstantValue(number.value(negated: false)))
        case .string:
            advance()
            return .constant(ConstantValue(token.text))
        case .variable:
            advance()
            return .variable(token.text)
        case .specifier:
            advance()
            return try substitute(token)
        case .identifier:
            advance()
            if isPunct(.leftParen) { return try parseCall(name: token) }
            return .keyPath(KeyPathComponents(components: [token.text]))
        case .selector:
            advance()
            guard isPunct(.leftParen) else { throw expected("'(' after selector '\(token.text)'") }
            let arguments = try parseArguments()
            try checkArity(selector: token.text, count: arguments.count, at: token.start)
            return .function(name: token.text, arguments: arguments)
        case .punct(.leftParen):
            try enter(at: token.start)
            advance()
            let inner = try parseExpression()
            try expect(.rightParen, "')'")
            leave()
            return inner
        case .punct(.leftBrace):
            try enter(at: token.start)
            advance()
            var elements: [ExpressionNode] = []
            if !isPunct(.rightBrace) {
                while true {
                    elements.append(try parseExpression())
                    guard isPunct(.comma) else { break }
                    guard elements.count < ParserLimits.maxAggregateElements else {
                        throw error("more than \(ParserLimits.maxAggregateElements) elements", at: current.start)
                    }
                    advance()
                }
            }
            try expect(.rightBrace, elements.isEmpty ? "an expression or '}'" : "',' or '}'")
            leave()
            return .aggregate(elements)
        case .punct(.assign):
            throw error("':=' assignment is not supported", at: token.start)
        case .keyword(let keyword):
            return try parseKeywordPrimary(keyword, token: token)
        case .end:
            throw error("unexpected end of format string, expected an expression", at: token.start)
        default:
            throw expected("an expression")
        }
    }

    private mutating func parseKeywordPrimary(_ keyword: Keyword, token: Token) throws(PredicateSyntaxError) -> ExpressionNode {
        switch keyword {
        case .trueKeyword, .yes:
            advance()
            return .constant(ConstantValue(true))
        case .falseKeyword, .no:
            advance()
            return .constant(ConstantValue(false))
        case .nilKeyword, .null:
            advance()
            return .constant(ConstantValue(nil))
        case .selfKeyword:
            advance()
            return .evaluatedObject
        case .anyKey:
            advance()
            return .anyKey
        case .fetch, .utiConformsTo, .utiEquals:
            throw error("'\(keyword.rawValue)' is not supported", at: token.start)
        case .function, .subquery, .ternary, .cast:
            advance()
            guard isPunct(.leftParen) else { throw expected("'(' after \(keyword.rawValue)") }
            try enter(at: current.start)
            advance()
            let result = try parseSpecialForm(keyword, token: token)
            try expect(.rightParen, "')'")
            leave()
            return result
        default:
            let hint = ExpressionNode.IndexSymbol(rawValue: keyword.rawValue) != nil ? " outside an index" : ""
            throw error(
                "expected an expression, found reserved word \(describe(token))\(hint) (write #\(token.text) to use it as a key)",
                at: token.start)
        }
    }

    /// The inside of `FUNCTION(…)`, `SUBQUERY(…)`, `TERNARY(…)`, `CAST(…)`, after the `(`.
    private mutating func parseSpecialForm(_ keyword: Keyword, token: Token) throws(PredicateSyntaxError) -> ExpressionNode {
        switch keyword {
        case .subquery:
            let collection = try parseExpression()
            try expect(.comma, "','")
            guard current.kind == .variable else { throw expected("a variable such as $x") }
            let variable = current.text
            advance()
            try expect(.comma, "','")
            let predicate = try parsePredicateNode()
            return .subquery(collection: collection, variable: variable, predicate: predicate)
        case .ternary:
            let predicate = try parsePredicateNode()
            try expect(.comma, "','")
            let whenTrue = try parseExpression()
            try expect(.comma, "','")
            let whenFalse = try parseExpression()
            return .conditional(predicate, whenTrue, whenFalse)
        case .cast:
            let value = try parseExpression()
            try expect(.comma, "','")
            let typeStart = current.start
            let type = try parseExpression()
            guard let typeName = Self.stringConstant(type) else {
                throw error("CAST needs a type name string such as 'NSNumber'", at: typeStart)
            }
            return .function(name: "castObject:toType:", arguments: [value, .constant(ConstantValue(typeName))])
        default:  // .function
            let receiver = try parseExpression()
            try expect(.comma, "','")
            let selectorStart = current.start
            let selectorExpression = try parseExpression()
            guard let selector = Self.stringConstant(selectorExpression) else {
                throw error("FUNCTION needs a selector name string", at: selectorStart)
            }
            var arguments: [ExpressionNode] = []
            while isPunct(.comma) {
                guard arguments.count < ParserLimits.maxAggregateElements else {
                    throw error("more than \(ParserLimits.maxAggregateElements) arguments", at: current.start)
                }
                advance()
                arguments.append(try parseExpression())
            }
            return .customFunction(receiver: receiver, selector: selector, arguments: arguments)
        }
    }

    /// `name(args)`: a built-in function called by name.
    private mutating func parseCall(name: Token) throws(PredicateSyntaxError) -> ExpressionNode {
        let arguments = try parseArguments()
        guard let selector = BuiltinFunctions.selector(forCallName: name.text, argumentCount: arguments.count) else {
            throw error("unknown function '\(name.text)'", at: name.start)
        }
        try checkArity(selector: selector, count: arguments.count, at: name.start)
        return .function(name: selector, arguments: arguments)
    }

    /// `( expression (, expression)* )` or `()`; the current token is the `(`.
    private mutating func parseArguments() throws(PredicateSyntaxError) -> [ExpressionNode] {
        try enter(at: current.start)
        advance()
        var arguments: [ExpressionNode] = []
        if !isPunct(.rightParen) {
            while true {
                arguments.append(try parseExpression())
                guard isPunct(.comma) else { break }
                guard arguments.count < ParserLimits.maxAggregateElements else {
                    throw error("more than \(ParserLimits.maxAggregateElements) arguments", at: current.start)
                }
                advance()
            }
        }
        try expect(.rightParen, arguments.isEmpty ? "an expression or ')'" : "',' or ')'")
        leave()
        return arguments
    }

    private func checkArity(selector: String, count: Int, at offset: Int) throws(PredicateSyntaxError) {
        guard let arity = BuiltinFunctions.arity(of: selector) else {
            throw error("unknown function '\(selector)'", at: offset)
        }
        guard arity.contains(count) else {
            let takes: String
            if arity.upperBound == Int.max {
                takes = "\(arity.lowerBound) or more arguments"
            } else if arity.lowerBound == arity.upperBound {
                takes = arity.lowerBound == 0 ? "no arguments" : "\(arity.lowerBound) argument\(arity.lowerBound == 1 ? "" : "s")"
            } else {
                takes = "\(arity.lowerBound) to \(arity.upperBound) arguments"
            }
            throw error("'\(selector)' takes \(takes), got \(count)", at: offset)
        }
    }
}
