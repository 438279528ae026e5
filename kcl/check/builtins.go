package check

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// builtinNames are the official engine's builtin functions, in its order; 0.12.1
// has no reduce (newer engines do)
// (the order matters for "did you mean" suggestions of equal similarity).
var builtinNames = []string{
	"option", "print", "multiplyof", "isunique", "isnullish", "len", "abs", "all_true",
	"any_true", "hex", "bin", "oct", "ord", "sorted", "range", "max", "min", "sum", "pow",
	"round", "zip", "int", "float", "bool", "str", "list", "dict", "typeof",
}

var builtinSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range builtinNames {
		m[n] = true
	}
	return m
}()

// systemModules are the official standard modules and their function members
// (0.12.1 has no net.is_IPv6, datetime.is_rfc3339, datetime.is_iso8601 or
// json.merge: the engine runs them, the official resolver refuses them).
var systemModules = map[string][]string{
	"base64":     {"encode", "decode"},
	"base32":     {"encode", "decode"},
	"net":        {"CIDR_host", "CIDR_netmask", "CIDR_subnet", "CIDR_subnets", "split_host_port", "join_host_port", "fqdn", "parse_IP", "IP_string", "to_IP4", "to_IP6", "is_IPv4", "is_IP", "is_loopback_IP", "is_multicast_IP", "is_interface_local_multicast_IP", "is_link_local_multicast_IP", "is_link_local_unicast_IP", "is_global_unicast_IP", "is_unspecified_IP", "parse_CIDR", "is_IP_in_CIDR"},
	"manifests":  {"yaml_stream"},
	"math":       {"ceil", "factorial", "floor", "gcd", "isfinite", "isinf", "isnan", "modf", "exp", "expm1", "log", "log1p", "log2", "log10", "pow", "sqrt"},
	"datetime":   {"ticks", "date", "now", "today", "validate"},
	"regex":      {"replace", "match", "compile", "findall", "search", "split"},
	"yaml":       {"encode", "encode_all", "decode", "decode_all", "dump_to_file", "dump_all_to_file", "validate"},
	"json":       {"encode", "decode", "dump_to_file", "validate"},
	"crypto":     {"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake3", "uuid", "filesha256"},
	"units":      {"n", "u", "m", "k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi", "to_n", "to_u", "to_m", "to_K", "to_M", "to_G", "to_T", "to_P", "to_Ki", "to_Mi", "to_Gi", "to_Ti", "to_Pi"},
	"file":       {"read", "glob", "modpath", "workdir", "current", "exists", "abs", "append", "mkdir", "delete", "cp", "mv", "size", "write", "read_env"},
	"template":   {"execute", "html_escape"},
	"runtime":    {"catch"},
	"collection": {"union_all"},
}

var systemMembers = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for mod, names := range systemModules {
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		m[mod] = set
	}
	return m
}()

// The official types of parameters that are neither any nor a basic type.
var (
	iterableT = &typ{kind: tUnion, elems: []*typ{strT, {kind: tDict, key: anyT, elem: anyT}, {kind: tList, elem: anyT}}}
	// numberT is int | float, kept as written: the sup would be float.
	numberT  = &typ{kind: tUnion, elems: []*typ{intT, floatT}}
	anyListT = &typ{kind: tList, elem: anyT}
	strDictT = &typ{kind: tDict, key: strT, elem: anyT}
)

// required and optional are a builtin function's parameters, without and
// with a default (t nil: any).
func required(name string, t *typ) param { return param{name: name, t: t, required: true} }
func optional(name string, t *typ) param { return param{name: name, t: t} }

var (
	// variadicFuncs are the builtins, str methods and decorators that take
	// any further arguments and keywords (the values of those keywords are
	// not walked: see matchArguments).
	variadicFuncs = map[string]bool{"print": true, "max": true, "min": true, "zip": true, "dict": true, "format": true, "info": true}

	// builtinFuncs are the official parameters of the builtins, in order.
	builtinFuncs = map[string][]param{
		"print": {}, "max": {}, "min": {}, "zip": {}, "dict": {optional("x", nil)},
		"option":     {required("key", strT), optional("type", strT), optional("required", boolT), optional("default", nil), optional("help", strT)},
		"multiplyof": {required("a", intT), required("b", intT)},
		"isunique":   {required("inval", anyListT)}, "isnullish": {required("inval", nil)},
		"len": {required("inval", iterableT)}, "abs": {required("inval", nil)},
		"all_true": {required("inval", anyListT)}, "any_true": {required("inval", anyListT)},
		"hex": {required("number", intT)}, "bin": {required("number", intT)}, "oct": {required("number", intT)},
		"ord":    {required("c", strT)},
		"sorted": {required("inval", iterableT), optional("reverse", boolT)},
		"range":  {optional("start", intT), optional("stop", intT), optional("step", intT)},
		"sum":    {required("iterable", anyListT), optional("start", nil)},
		"pow":    {required("x", numberT), required("y", numberT), optional("z", numberT)},
		"round":  {required("number", numberT), optional("ndigits", intT)},
		"int":    {required("number", nil), optional("base", intT)},
		"float":  {required("number", nil)},
		"bool":   {optional("x", nil)}, "str": {optional("x", nil)}, "list": {optional("x", nil)},
		"typeof": {required("x", nil), optional("full_name", boolT)},
	}

	// strMethods are the official parameters of the str methods.
	strMethods = map[string][]param{
		"format":     {},
		"capitalize": {}, "chars": {}, "isalnum": {}, "isalpha": {}, "isdigit": {}, "islower": {},
		"isspace": {}, "istitle": {}, "isupper": {}, "lower": {}, "upper": {}, "title": {},
		"count":      {required("sub", strT), optional("start", intT), optional("end", intT)},
		"endswith":   {required("val", strT), optional("start", intT), optional("end", intT)},
		"find":       {required("sub", strT), optional("start", intT), optional("end", intT)},
		"index":      {required("sub", strT), optional("start", intT), optional("end", intT)},
		"rfind":      {required("sub", strT), optional("start", intT), optional("end", intT)},
		"rindex":     {required("sub", strT), optional("start", intT), optional("end", intT)},
		"startswith": {required("val", strT), optional("start", intT), optional("end", intT)},
		"join":       {required("iter", anyListT)},
		"lstrip":     {optional("chars", strT)}, "rstrip": {optional("chars", strT)}, "strip": {optional("chars", strT)},
		"replace":      {required("old", strT), required("new", strT), optional("count", intT)},
		"removeprefix": {required("prefix", strT)}, "removesuffix": {required("suffix", strT)},
		"rsplit":     {optional("sep", strT), optional("maxsplit", intT)},
		"split":      {optional("sep", strT), optional("maxsplit", intT)},
		"splitlines": {optional("keepends", boolT)},
	}

	// systemFuncs are the official parameters of the system modules'
	// functions, in order: names, types, and which have defaults (0.12.1's
	// resolver has no net.is_IPv6, datetime.is_rfc3339, datetime.is_iso8601
	// or json.merge: calls of those are refused before their arguments).
	systemFuncs = map[string]map[string][]param{
		"base64": {
			"encode": {required("value", strT), optional("encoding", strT)},
			"decode": {required("value", strT)},
		},
		"base32": {
			"encode": {required("value", strT)},
			"decode": {required("value", strT)},
		},
		"net": {
			"CIDR_host":                       {required("cidr", strT), required("host_num", intT)},
			"CIDR_netmask":                    {required("cidr", strT)},
			"CIDR_subnet":                     {required("cidr", strT), required("additional_bits", intT), required("net_num", intT)},
			"CIDR_subnets":                    {required("cidr", strT), required("additional_bits", &typ{kind: tList, elem: intT})},
			"split_host_port":                 {required("ip_end_point", strT)},
			"join_host_port":                  {required("host", strT), required("port", &typ{kind: tUnion, elems: []*typ{intT, strT}})},
			"fqdn":                            {optional("name", strT)},
			"parse_IP":                        {required("ip", strT)},
			"IP_string":                       {required("ip", strT)},
			"to_IP4":                          {required("ip", strT)},
			"to_IP6":                          {required("ip", strT)},
			"is_IPv4":                         {required("ip", strT)},
			"is_IP":                           {required("ip", strT)},
			"is_loopback_IP":                  {required("ip", strT)},
			"is_multicast_IP":                 {required("ip", strT)},
			"is_interface_local_multicast_IP": {required("ip", strT)},
			"is_link_local_multicast_IP":      {required("ip", strT)},
			"is_link_local_unicast_IP":        {required("ip", strT)},
			"is_global_unicast_IP":            {required("ip", strT)},
			"is_unspecified_IP":               {required("ip", strT)},
			"parse_CIDR":                      {required("cidr", strT)},
			"is_IP_in_CIDR":                   {required("ip", strT), required("cidr", strT)},
		},
		"manifests": {
			"yaml_stream": {required("values", nil), optional("opts", strDictT)},
		},
		"math": {
			"ceil": {required("x", numberT)}, "factorial": {required("x", numberT)},
			"floor": {required("x", numberT)}, "gcd": {required("a", intT), required("b", intT)},
			"isfinite": {required("x", numberT)}, "isinf": {required("x", numberT)},
			"isnan": {required("x", numberT)}, "modf": {required("x", numberT)},
			"exp": {required("x", numberT)}, "expm1": {required("x", numberT)},
			"log": {required("x", numberT), optional("e", floatT)}, "log1p": {required("x", numberT)},
			"log2": {required("x", numberT)}, "log10": {required("x", numberT)},
			"pow": {required("x", numberT), required("y", numberT)}, "sqrt": {required("x", numberT)},
		},
		"datetime": {
			"ticks": {}, "date": {}, "now": {optional("format", strT)}, "today": {},
			"validate": {required("date", strT), required("format", strT)},
		},
		"regex": {
			"replace": {required("string", strT), required("pattern", strT), required("replace", strT), optional("count", intT)},
			"match":   {required("string", strT), required("pattern", strT)},
			"compile": {required("pattern", strT)},
			"findall": {required("string", strT), required("pattern", strT)},
			"search":  {required("string", strT), required("pattern", strT)},
			"split":   {required("string", strT), required("pattern", strT), optional("maxsplit", intT)},
		},
		"yaml": {
			"encode":           {required("data", nil), optional("sort_keys", boolT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"encode_all":       {required("data", anyListT), optional("sort_keys", boolT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"decode":           {required("value", strT)},
			"decode_all":       {required("value", strT)},
			"dump_to_file":     {required("data", nil), required("filename", strT), optional("sort_keys", boolT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"dump_all_to_file": {required("data", anyListT), required("filename", strT), optional("sort_keys", boolT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"validate":         {required("value", strT)},
		},
		"json": {
			"encode":       {required("data", nil), optional("sort_keys", boolT), optional("indent", intT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"decode":       {required("value", strT)},
			"dump_to_file": {required("data", nil), required("filename", strT), optional("sort_keys", boolT), optional("indent", intT), optional("ignore_private", boolT), optional("ignore_none", boolT)},
			"validate":     {required("value", strT)},
		},
		"crypto": {
			"md5": {required("value", strT), optional("encoding", strT)}, "sha1": {required("value", strT), optional("encoding", strT)},
			"sha224": {required("value", strT), optional("encoding", strT)}, "sha256": {required("value", strT), optional("encoding", strT)},
			"sha384": {required("value", strT), optional("encoding", strT)}, "sha512": {required("value", strT), optional("encoding", strT)},
			"blake3": {required("value", strT), optional("encoding", strT)}, "uuid": {},
			"filesha256": {required("filepath", strT)},
		},
		"units": {
			"to_n": {required("num", numberT)}, "to_u": {required("num", numberT)}, "to_m": {required("num", numberT)},
			"to_K": {required("num", numberT)}, "to_M": {required("num", numberT)}, "to_G": {required("num", numberT)},
			"to_T": {required("num", numberT)}, "to_P": {required("num", numberT)}, "to_Ki": {required("num", numberT)},
			"to_Mi": {required("num", numberT)}, "to_Gi": {required("num", numberT)}, "to_Ti": {required("num", numberT)},
			"to_Pi": {required("num", numberT)},
		},
		"collection": {
			"union_all": {required("num", anyListT)},
		},
		"file": {
			"read": {required("filepath", strT)}, "glob": {required("pattern", strT)},
			"modpath": {}, "workdir": {}, "current": {},
			"exists": {required("filepath", strT)}, "abs": {required("filepath", strT)},
			"append":   {required("filepath", strT), required("content", strT)},
			"mkdir":    {required("directory", strT), optional("exists", boolT)},
			"delete":   {required("filepath", strT)},
			"cp":       {required("src", strT), required("dest", strT)},
			"mv":       {required("src", strT), required("dest", strT)},
			"size":     {required("filepath", strT)},
			"write":    {required("filepath", strT), required("content", strT)},
			"read_env": {required("key", strT)},
		},
		"template": {
			"execute":     {required("template", strT), optional("data", strDictT)},
			"html_escape": {required("data", strT)},
		},
		"runtime": {
			// A lambda without parameters.
			"catch": {required("func", &typ{kind: tFunc, elem: anyT})},
		},
	}
)

// knownCall walks and checks the arguments of a call of a builtin, a system
// module's function or a str method, as the official resolver checks any
// function's (see matchArguments); false when e calls something else.
func (r *checker) knownCall(e *syntax.CallExpr) bool {
	name, quoted, params, ok := r.knownParams(e)
	if !ok {
		return false
	}
	r.matchArguments(e.Func.Pos(), quoted, params, variadicFuncs[name], e.Args, e.Keywords, r.typedParam)
	return true
}

// knownParams are the parameters of the builtin, system module's function
// or str method e calls, its own name and its name as the official messages
// quote it: a dotted name whole (`json.encode`, `s.split`), a method of
// another value by its name.
func (r *checker) knownParams(e *syntax.CallExpr) (name, quoted string, params []param, ok bool) {
	var recv *typ
	switch f := e.Func.(type) {
	case *syntax.SelectorExpr:
		if f.Attr == nil || len(f.Attr.Names) != 1 {
			return "", "", nil, false
		}
		recv, name = r.exprType(f.Value, 0), f.Attr.Names[0].Value
		quoted = `"` + name + `"`
	case *syntax.Identifier:
		if r.shadowed(f) || len(f.Names) == 0 {
			return "", "", nil, false
		}
		name, quoted = f.Name(), `"`+f.Name()+`"`
		sym := r.pkg.globals[f.Names[0].Value]
		switch {
		case len(f.Names) == 1:
			params, ok = builtinFuncs[name]
			return name, quoted, params, ok && sym == nil
		case len(f.Names) == 2 && sym != nil && sym.kind == symModule:
			params, ok = systemFuncs[sym.system][f.Names[1].Value]
			return name, quoted, params, ok
		}
		prefix := &syntax.Identifier{Span: f.Span, Names: f.Names[:len(f.Names)-1]}
		recv, name = r.identType(prefix), f.Names[len(f.Names)-1].Value
	default:
		return "", "", nil, false
	}
	if !recv.isStrKind() {
		return "", "", nil, false
	}
	params, ok = strMethods[name]
	return name, quoted, params, ok
}

// typedParam reports an argument whose type cannot be its builtin
// parameter's (nil: any, which no module fits).
func (r *checker) typedParam(p param, a syntax.Expr) {
	if a == nil {
		return
	}
	t, want := r.exprType(a, 0), p.t
	if want == nil && t.hasModule() {
		want = anyT
	}
	if want == nil || t.isAny() {
		return
	}
	if !assignable(t, want) {
		r.report(errkind.Type, a.Pos(), "expected %s, got %s", want, t)
	}
}

func hasSchema(t *typ) bool {
	for _, e := range t.elems {
		if e.kind == tSchema {
			return true
		}
	}
	return false
}
