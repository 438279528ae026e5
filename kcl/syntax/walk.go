package syntax

// Walk traverses the tree rooted at n in depth-first order, source order within
// a node. It calls f(n); if f returns true, Walk visits each child of n, then
// calls f(nil). Nil children are skipped. Names (*Name) and comments are
// visited too; Module.Comments are not.
func Walk(n Node, f func(Node) bool) {
	if isNilNode(n) || !f(n) {
		return
	}
	walkChildren(n, f)
	f(nil)
}

func isNilNode(n Node) bool {
	if n == nil {
		return true
	}
	switch x := n.(type) {
	case *Name:
		return x == nil
	case *Identifier:
		return x == nil
	case *Arguments:
		return x == nil
	case *ConfigEntry:
		return x == nil
	case *CompClause:
		return x == nil
	case *Keyword:
		return x == nil
	case *CallExpr:
		return x == nil
	case *CheckExpr:
		return x == nil
	case *SchemaIndexSignature:
		return x == nil
	case *SchemaExpr:
		return x == nil
	case *Target:
		return x == nil
	case *Module:
		return x == nil
	}
	return false
}

func walkChildren(n Node, f func(Node) bool) {
	walkExprs := func(list []Expr) {
		for _, e := range list {
			Walk(e, f)
		}
	}
	walkStmts := func(list []Stmt) {
		for _, s := range list {
			Walk(s, f)
		}
	}
	walkTypes := func(list []Type) {
		for _, t := range list {
			Walk(t, f)
		}
	}
	walkIdents := func(list []*Identifier) {
		for _, id := range list {
			Walk(id, f)
		}
	}
	walkCalls := func(list []*CallExpr) {
		for _, c := range list {
			Walk(c, f)
		}
	}
	walkChecks := func(list []*CheckExpr) {
		for _, c := range list {
			Walk(c, f)
		}
	}
	walkOpt := func(n Node) {
		if !isNilNode(n) {
			Walk(n, f)
		}
	}
	switch x := n.(type) {
	case *Module:
		walkOpt(x.Doc)
		walkStmts(x.Body)
	case *Name, *Comment, *NumberLit, *StringLit, *NameConstantLit, *MissingExpr, *AnyType, *BasicType, *LiteralType:
	case *TypeAliasStmt:
		walkOpt(x.TypeName)
		walkOpt(x.TypeValue)
		walkOpt(x.Ty)
	case *ExprStmt:
		walkExprs(x.Exprs)
	case *UnificationStmt:
		walkOpt(x.Target)
		walkOpt(x.Value)
	case *AssignStmt:
		for _, t := range x.Targets {
			Walk(t, f)
		}
		walkOpt(x.Ty)
		walkOpt(x.Value)
	case *AugAssignStmt:
		walkOpt(x.Target)
		walkOpt(x.Value)
	case *AssertStmt:
		walkOpt(x.Test)
		walkOpt(x.IfCond)
		walkOpt(x.Msg)
	case *IfStmt:
		walkOpt(x.Cond)
		walkStmts(x.Body)
		walkStmts(x.Orelse)
	case *ImportStmt:
		walkOpt(x.Path)
		walkOpt(x.AsName)
	case *SchemaStmt:
		walkCalls(x.Decorators)
		walkOpt(x.Name)
		walkOpt(x.Args)
		walkOpt(x.ParentName)
		walkOpt(x.ForHostName)
		walkOpt(x.Doc)
		walkIdents(x.Mixins)
		walkStmts(x.Body)
		walkOpt(x.IndexSignature)
		walkChecks(x.Checks)
	case *SchemaIndexSignature:
		walkOpt(x.KeyName)
		walkOpt(x.KeyTy)
		walkOpt(x.ValueTy)
		walkOpt(x.Value)
	case *SchemaAttr:
		walkCalls(x.Decorators)
		walkOpt(x.Name)
		walkOpt(x.Ty)
		walkOpt(x.Value)
	case *RuleStmt:
		walkCalls(x.Decorators)
		walkOpt(x.Name)
		walkOpt(x.Args)
		walkIdents(x.ParentRules)
		walkOpt(x.ForHostName)
		walkOpt(x.Doc)
		walkChecks(x.Checks)
	case *Target:
		walkOpt(x.Name)
		for _, p := range x.Paths {
			if p.Member != nil {
				Walk(p.Member, f)
			} else {
				walkOpt(p.Index)
			}
		}
	case *Identifier:
		for _, name := range x.Names {
			Walk(name, f)
		}
	case *UnaryExpr:
		walkOpt(x.Operand)
	case *BinaryExpr:
		walkOpt(x.Left)
		walkOpt(x.Right)
	case *IfExpr:
		walkOpt(x.Body)
		walkOpt(x.Cond)
		walkOpt(x.Orelse)
	case *SelectorExpr:
		walkOpt(x.Value)
		walkOpt(x.Attr)
	case *CallExpr:
		walkOpt(x.Func)
		walkExprs(x.Args)
		for _, k := range x.Keywords {
			Walk(k, f)
		}
	case *ParenExpr:
		walkOpt(x.Expr)
	case *QuantExpr:
		walkIdents(x.Variables)
		walkOpt(x.Target)
		walkOpt(x.Test)
		walkOpt(x.IfCond)
	case *ListExpr:
		walkExprs(x.Elts)
	case *ListIfItemExpr:
		walkOpt(x.IfCond)
		walkExprs(x.Exprs)
		walkOpt(x.Orelse)
	case *ListComp:
		walkOpt(x.Elt)
		for _, g := range x.Generators {
			Walk(g, f)
		}
	case *StarredExpr:
		walkOpt(x.Value)
	case *DictComp:
		walkOpt(x.Entry)
		for _, g := range x.Generators {
			Walk(g, f)
		}
	case *ConfigIfEntryExpr:
		walkOpt(x.IfCond)
		for _, e := range x.Items {
			Walk(e, f)
		}
		walkOpt(x.Orelse)
	case *CompClause:
		walkIdents(x.Targets)
		walkOpt(x.Iter)
		walkExprs(x.Ifs)
	case *SchemaExpr:
		walkOpt(x.Name)
		walkExprs(x.Args)
		for _, k := range x.Kwargs {
			Walk(k, f)
		}
		walkOpt(x.Config)
	case *ConfigExpr:
		for _, e := range x.Items {
			Walk(e, f)
		}
	case *ConfigEntry:
		walkOpt(x.Key)
		walkOpt(x.Value)
	case *CheckExpr:
		walkOpt(x.Test)
		walkOpt(x.IfCond)
		walkOpt(x.Msg)
	case *LambdaExpr:
		walkOpt(x.Args)
		walkOpt(x.ReturnTy)
		walkStmts(x.Body)
	case *Subscript:
		walkOpt(x.Value)
		walkOpt(x.Index)
		walkOpt(x.Lower)
		walkOpt(x.Upper)
		walkOpt(x.Step)
	case *Keyword:
		walkOpt(x.Arg)
		walkOpt(x.Value)
	case *Arguments:
		for i, a := range x.Args {
			Walk(a, f)
			if i < len(x.TyList) {
				walkOpt(x.TyList[i])
			}
			if i < len(x.Defaults) {
				walkOpt(x.Defaults[i])
			}
		}
	case *Compare:
		walkOpt(x.Left)
		walkExprs(x.Comparators)
	case *JoinedString:
		walkExprs(x.Values)
	case *FormattedValue:
		walkOpt(x.Value)
	case *NamedType:
		walkOpt(x.Identifier)
	case *ListType:
		walkOpt(x.InnerType)
	case *DictType:
		walkOpt(x.KeyType)
		walkOpt(x.ValueType)
	case *UnionType:
		walkTypes(x.TypeElements)
	case *FunctionType:
		walkTypes(x.ParamsTy)
		walkOpt(x.RetTy)
	}
}
