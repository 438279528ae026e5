package resolve

import "github.com/kcl-lang/flux-kcl-controller/kcl/syntax"

// builtinNames are the official engine's builtin functions, in its order
// (the order matters for "did you mean" suggestions of equal similarity).
var builtinNames = []string{
	"option", "print", "multiplyof", "isunique", "isnullish", "len", "abs", "all_true",
	"any_true", "hex", "bin", "oct", "ord", "sorted", "range", "max", "min", "sum", "pow",
	"round", "zip", "int", "float", "bool", "str", "list", "dict", "typeof", "reduce",
}

var builtinSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range builtinNames {
		m[n] = true
	}
	return m
}()

// systemModules are the official standard modules and their function members.
var systemModules = map[string][]string{
	"base64":     {"encode", "decode"},
	"base32":     {"encode", "decode"},
	"net":        {"CIDR_host", "CIDR_netmask", "CIDR_subnet", "CIDR_subnets", "split_host_port", "join_host_port", "fqdn", "parse_IP", "IP_string", "to_IP4", "to_IP6", "is_IPv4", "is_IPv6", "is_IP", "is_loopback_IP", "is_multicast_IP", "is_interface_local_multicast_IP", "is_link_local_multicast_IP", "is_link_local_unicast_IP", "is_global_unicast_IP", "is_unspecified_IP", "parse_CIDR", "is_IP_in_CIDR"},
	"manifests":  {"yaml_stream"},
	"math":       {"ceil", "factorial", "floor", "gcd", "isfinite", "isinf", "isnan", "modf", "exp", "expm1", "log", "log1p", "log2", "log10", "pow", "sqrt"},
	"datetime":   {"ticks", "date", "now", "today", "validate", "is_rfc3339", "is_iso8601"},
	"regex":      {"replace", "match", "compile", "findall", "search", "split"},
	"yaml":       {"encode", "encode_all", "decode", "decode_all", "dump_to_file", "dump_all_to_file", "validate"},
	"json":       {"encode", "decode", "dump_to_file", "validate", "merge"},
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

// The official parameter types of builtins and math functions that are not
// any (their positional parameters in order; nil is any).
var (
	iterableT = &typ{kind: tUnion, elems: []*typ{strT, {kind: tDict, key: anyT, elem: anyT}, {kind: tList, elem: anyT}}}
	// numberT is int | float, kept as written: the sup would be float.
	numberT = &typ{kind: tUnion, elems: []*typ{intT, floatT}}

	builtinParams = map[string][]*typ{
		"option": {strT, strT, boolT, nil, strT}, "multiplyof": {intT, intT},
		"len": {iterableT}, "hex": {intT}, "bin": {intT}, "oct": {intT}, "ord": {strT},
		"sorted": {iterableT, boolT}, "range": {intT, intT, intT}, "pow": {numberT, numberT, numberT},
		"round": {numberT, intT}, "int": {nil, intT}, "typeof": {nil, boolT},
		"sum": {{kind: tList, elem: anyT}},
	}
	// strMethodParams are the official parameter types of the str methods
	// (positional, in order; nil is any).
	strMethodParams = map[string][]*typ{
		"count": {strT, intT, intT}, "endswith": {strT, intT, intT}, "find": {strT, intT, intT},
		"index": {strT, intT, intT}, "join": {{kind: tList, elem: anyT}}, "lstrip": {strT},
		"rstrip": {strT}, "replace": {strT, strT, intT}, "removeprefix": {strT},
		"removesuffix": {strT}, "rfind": {strT, intT, intT}, "rindex": {strT, intT, intT},
		"rsplit": {strT, intT}, "split": {strT, intT}, "splitlines": {boolT},
		"startswith": {strT, intT, intT}, "strip": {strT},
	}
	// systemParams are the official parameter types of the system modules'
	// functions (positional, in order; nil is any).
	systemParams = map[string]map[string][]*typ{
		"base64":     {"encode": {strT, strT}, "decode": {strT}},
		"base32":     {"encode": {strT}, "decode": {strT}},
		"net":        {"CIDR_host": {strT, intT}, "CIDR_netmask": {strT}, "CIDR_subnet": {strT, intT, intT}, "CIDR_subnets": {strT, {kind: tList, elem: intT}}, "split_host_port": {strT}, "join_host_port": {strT, {kind: tUnion, elems: []*typ{intT, strT}}}, "fqdn": {strT}, "parse_IP": {strT}, "IP_string": {strT}, "to_IP4": {strT}, "to_IP6": {strT}, "is_IPv4": {strT}, "is_IPv6": {strT}, "is_IP": {strT}, "is_loopback_IP": {strT}, "is_multicast_IP": {strT}, "is_interface_local_multicast_IP": {strT}, "is_link_local_multicast_IP": {strT}, "is_link_local_unicast_IP": {strT}, "is_global_unicast_IP": {strT}, "is_unspecified_IP": {strT}, "parse_CIDR": {strT}, "is_IP_in_CIDR": {strT, strT}},
		"manifests":  {"yaml_stream": {nil, {kind: tDict, key: strT, elem: anyT}}},
		"math":       {"ceil": {numberT}, "factorial": {numberT}, "floor": {numberT}, "gcd": {intT, intT}, "isfinite": {numberT}, "isinf": {numberT}, "isnan": {numberT}, "modf": {numberT}, "exp": {numberT}, "expm1": {numberT}, "log": {numberT, floatT}, "log1p": {numberT}, "log2": {numberT}, "log10": {numberT}, "pow": {numberT, numberT}, "sqrt": {numberT}},
		"datetime":   {"now": {strT}, "validate": {strT, strT}, "is_rfc3339": {strT}, "is_iso8601": {strT}},
		"regex":      {"replace": {strT, strT, strT, intT}, "match": {strT, strT}, "compile": {strT}, "findall": {strT, strT}, "search": {strT, strT}, "split": {strT, strT, intT}},
		"yaml":       {"encode": {nil, boolT, boolT, boolT}, "encode_all": {{kind: tList, elem: anyT}, boolT, boolT, boolT}, "decode": {strT}, "decode_all": {strT}, "dump_to_file": {nil, strT, boolT, boolT, boolT}, "dump_all_to_file": {{kind: tList, elem: anyT}, strT, boolT, boolT, boolT}, "validate": {strT}},
		"json":       {"encode": {nil, boolT, intT, boolT, boolT}, "decode": {strT}, "dump_to_file": {nil, strT, boolT, intT, boolT, boolT}, "validate": {strT}},
		"crypto":     {"md5": {strT, strT}, "sha1": {strT, strT}, "sha224": {strT, strT}, "sha256": {strT, strT}, "sha384": {strT, strT}, "sha512": {strT, strT}, "blake3": {strT, strT}, "filesha256": {strT}},
		"units":      {"to_n": {numberT}, "to_u": {numberT}, "to_m": {numberT}, "to_K": {numberT}, "to_M": {numberT}, "to_G": {numberT}, "to_T": {numberT}, "to_P": {numberT}, "to_Ki": {numberT}, "to_Mi": {numberT}, "to_Gi": {numberT}, "to_Ti": {numberT}, "to_Pi": {numberT}},
		"collection": {"union_all": {{kind: tList, elem: anyT}}},
		"file":       {"read": {strT}, "glob": {strT}, "exists": {strT}, "abs": {strT}, "append": {strT, strT}, "mkdir": {strT, boolT}, "delete": {strT}, "cp": {strT, strT}, "mv": {strT, strT}, "size": {strT}, "write": {strT, strT}, "read_env": {strT}},
		"template":   {"execute": {strT, {kind: tDict, key: strT, elem: anyT}}, "html_escape": {strT}},
	}
)

// builtinArguments reports a positional argument of a builtin (or math
// function) whose type cannot be the parameter's, as the official argument
// check does. Schema instances are left to run time.
func (r *resolver) builtinArguments(e *syntax.CallExpr) {
	id, ok := e.Func.(*syntax.Identifier)
	if !ok || r.shadowed(id) {
		return
	}
	var params []*typ
	switch len(id.Names) {
	case 1:
		if r.pkg.globals[id.Names[0].Value] != nil {
			return
		}
		params = builtinParams[id.Names[0].Value]
	case 2:
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symModule && sym.system != "" {
			params = systemParams[sym.system][id.Names[1].Value]
		}
	}
	r.typedArguments(e.Args, params)
}

// typedArguments reports positional arguments whose type cannot be their
// parameter's (nil: any); schema instances are left to run time.
func (r *resolver) typedArguments(args []syntax.Expr, params []*typ) {
	for i, a := range args {
		if i >= len(params) || a == nil {
			break
		}
		if _, ok := a.(*syntax.StarredExpr); ok {
			return
		}
		if params[i] == nil {
			continue
		}
		t := r.exprType(a, 0)
		if t.isAny() || t.kind == tSchema || t.kind == tUnion && hasSchema(t) {
			continue
		}
		if !assignable(t, params[i]) {
			r.report(KindType, a.Pos(), "expected %s, got %s", params[i], t)
		}
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
