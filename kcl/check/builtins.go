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
		"sum": {{kind: tList, elem: anyT}}, "isunique": {{kind: tList, elem: anyT}},
		"all_true": {{kind: tList, elem: anyT}}, "any_true": {{kind: tList, elem: anyT}},
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
		"runtime":    {"catch": {{kind: tFunc, elem: anyT}}},
	}
)

// builtinParamNames are the official parameter names of the builtins that
// have fixed parameters (print, max, min, zip and dict take any).
var builtinParamNames = map[string][]string{
	"option": {"key", "type", "required", "default", "help"}, "multiplyof": {"a", "b"},
	"isunique": {"inval"}, "isnullish": {"inval"}, "len": {"inval"}, "abs": {"inval"},
	"all_true": {"inval"}, "any_true": {"inval"}, "hex": {"number"}, "bin": {"number"},
	"oct": {"number"}, "ord": {"c"}, "sorted": {"inval", "reverse"},
	"range": {"start", "stop", "step"}, "sum": {"iterable", "start"}, "pow": {"x", "y", "z"},
	"round": {"number", "ndigits"}, "int": {"number", "base"}, "float": {"number"},
	"bool": {"x"}, "str": {"x"}, "list": {"x"}, "typeof": {"x", "full_name"},
}

// builtinCall walks and checks the arguments of a call of a builtin with
// fixed parameters, as the official resolver checks any function's (see
// matchArguments); false when e calls something else.
func (r *checker) builtinCall(e *syntax.CallExpr) bool {
	id, ok := e.Func.(*syntax.Identifier)
	if !ok || len(id.Names) != 1 || r.shadowed(id) || r.pkg.globals[id.Names[0].Value] != nil {
		return false
	}
	name := id.Names[0].Value
	names, ok := builtinParamNames[name]
	if !ok {
		return false
	}
	types, min := builtinParams[name], builtinArity[name].min
	params := make([]param, len(names))
	for i, n := range names {
		params[i] = param{name: n, required: i < min}
		if i < len(types) {
			params[i].t = types[i]
		}
	}
	r.matchArguments(id.Pos(), `"`+name+`"`, params, e.Args, e.Keywords, true, func(p param, v syntax.Expr) {
		r.typedArgument(v, p.t)
	})
	return true
}

// builtinArguments reports a positional argument of a system module's
// function whose type cannot be the parameter's, as the official argument
// check does, then a wrong count of arguments.
func (r *checker) builtinArguments(e *syntax.CallExpr) {
	id, ok := e.Func.(*syntax.Identifier)
	if !ok || r.shadowed(id) || len(id.Names) != 2 {
		return
	}
	sym := r.pkg.globals[id.Names[0].Value]
	if sym == nil || sym.kind != symModule || sym.system == "" {
		return
	}
	r.typedArguments(e.Args, systemParams[sym.system][id.Names[1].Value])
	name := sym.system + "." + id.Names[1].Value
	if a, ok := systemArity[name]; ok {
		r.arity(e, `"`+name+`"`, a, len(e.Keywords))
	}
}

// arity is how many positional arguments a function takes: at least min
// (keywords count), at most max (-1: any number).
type arity struct{ min, max int }

// The official arities of the builtins and system functions (measured with
// the official engine: f() and f with nine arguments).
var (
	builtinArity = map[string]arity{
		"option": {1, 5}, "multiplyof": {2, 2}, "isunique": {1, 1}, "isnullish": {1, 1},
		"len": {1, 1}, "abs": {1, 1}, "all_true": {1, 1}, "any_true": {1, 1}, "hex": {1, 1},
		"bin": {1, 1}, "oct": {1, 1}, "ord": {1, 1}, "sorted": {1, 2}, "range": {0, 3},
		"sum": {1, 2}, "pow": {2, 3}, "round": {1, 2}, "int": {1, 2}, "float": {1, 1},
		"bool": {0, 1}, "str": {0, 1}, "list": {0, 1}, "typeof": {1, 2},
	}
	systemArity = map[string]arity{
		"base64.encode": {1, 2}, "base64.decode": {1, 1}, "base32.encode": {1, 1}, "base32.decode": {1, 1},
		"net.CIDR_host": {2, 2}, "net.CIDR_netmask": {1, 1}, "net.CIDR_subnet": {3, 3}, "net.CIDR_subnets": {2, 2},
		"net.split_host_port": {1, 1}, "net.join_host_port": {2, 2}, "net.fqdn": {0, 1}, "net.parse_IP": {1, 1},
		"net.IP_string": {1, 1}, "net.to_IP4": {1, 1}, "net.to_IP6": {1, 1}, "net.is_IPv4": {1, 1}, "net.is_IP": {1, 1},
		"net.is_loopback_IP": {1, 1}, "net.is_multicast_IP": {1, 1}, "net.is_interface_local_multicast_IP": {1, 1},
		"net.is_link_local_multicast_IP": {1, 1}, "net.is_link_local_unicast_IP": {1, 1},
		"net.is_global_unicast_IP": {1, 1}, "net.is_unspecified_IP": {1, 1}, "net.parse_CIDR": {1, 1},
		"net.is_IP_in_CIDR": {2, 2}, "manifests.yaml_stream": {1, 2},
		"math.ceil": {1, 1}, "math.factorial": {1, 1}, "math.floor": {1, 1}, "math.gcd": {2, 2},
		"math.isfinite": {1, 1}, "math.isinf": {1, 1}, "math.isnan": {1, 1}, "math.modf": {1, 1},
		"math.exp": {1, 1}, "math.expm1": {1, 1}, "math.log": {1, 2}, "math.log1p": {1, 1},
		"math.log2": {1, 1}, "math.log10": {1, 1}, "math.pow": {2, 2}, "math.sqrt": {1, 1},
		"datetime.ticks": {0, 0}, "datetime.date": {0, 0}, "datetime.now": {0, 1}, "datetime.today": {0, 0},
		"datetime.validate": {2, 2},
		"regex.replace":     {3, 4}, "regex.match": {2, 2}, "regex.compile": {1, 1}, "regex.findall": {2, 2},
		"regex.search": {2, 2}, "regex.split": {2, 3},
		"yaml.encode": {1, 4}, "yaml.encode_all": {1, 4}, "yaml.decode": {1, 1}, "yaml.decode_all": {1, 1},
		"yaml.dump_to_file": {2, 5}, "yaml.dump_all_to_file": {2, 5}, "yaml.validate": {1, 1},
		"json.encode": {1, 5}, "json.decode": {1, 1}, "json.dump_to_file": {2, 6}, "json.validate": {1, 1},
		"crypto.md5": {1, 2}, "crypto.sha1": {1, 2}, "crypto.sha224": {1, 2}, "crypto.sha256": {1, 2},
		"crypto.sha384": {1, 2}, "crypto.sha512": {1, 2}, "crypto.blake3": {1, 2}, "crypto.uuid": {0, 0},
		"crypto.filesha256": {1, 1},
		"units.to_n":        {1, 1}, "units.to_u": {1, 1}, "units.to_m": {1, 1}, "units.to_K": {1, 1},
		"units.to_M": {1, 1}, "units.to_G": {1, 1}, "units.to_T": {1, 1}, "units.to_P": {1, 1},
		"units.to_Ki": {1, 1}, "units.to_Mi": {1, 1}, "units.to_Gi": {1, 1}, "units.to_Ti": {1, 1},
		"units.to_Pi": {1, 1},
		"file.read":   {1, 1}, "file.glob": {1, 1}, "file.modpath": {0, 0}, "file.workdir": {0, 0},
		"file.current": {0, 0}, "file.exists": {1, 1}, "file.abs": {1, 1}, "file.append": {2, 2},
		"file.mkdir": {1, 2}, "file.delete": {1, 1}, "file.cp": {2, 2}, "file.mv": {2, 2},
		"file.size": {1, 1}, "file.write": {2, 2}, "file.read_env": {1, 1},
		"template.execute": {1, 2}, "template.html_escape": {1, 1}, "runtime.catch": {1, 1},
		"collection.union_all": {1, 1},
	}
	// strMethodMax is the most positional arguments each str method takes
	// (format takes any number).
	strMethodMax = map[string]int{
		"capitalize": 0, "chars": 0, "count": 3, "endswith": 3, "find": 3, "index": 3,
		"isalnum": 0, "isalpha": 0, "isdigit": 0, "islower": 0, "isspace": 0, "istitle": 0,
		"isupper": 0, "join": 1, "lower": 0, "upper": 0, "lstrip": 1, "rstrip": 1, "replace": 3,
		"removeprefix": 1, "removesuffix": 1, "rfind": 3, "rindex": 3, "rsplit": 2, "split": 2,
		"splitlines": 1, "startswith": 3, "strip": 1, "title": 0,
	}
)

// arity reports a call with more positional arguments than the function
// takes (at the first one too many) or fewer than it needs, keywords
// counted, as the official engine does after the argument types.
func (r *checker) arity(e *syntax.CallExpr, quoted string, a arity, keywords int) {
	if a.max >= 0 && len(e.Args) > a.max {
		r.report(errkind.Compile, e.Args[a.max].Pos(), "%s takes %s but %d were given", quoted, positional(a.max), len(e.Args))
		return
	}
	if got := len(e.Args) + keywords; got < a.min {
		r.report(errkind.Compile, e.Func.Pos(), "expected %s, found %d", positional(a.min), got)
	}
}

// typedArguments reports positional arguments whose type cannot be their
// parameter's (nil: any); a starred one ends the check.
func (r *checker) typedArguments(args []syntax.Expr, params []*typ) {
	for i, a := range args {
		if i >= len(params) || a == nil {
			break
		}
		if _, ok := a.(*syntax.StarredExpr); ok {
			return
		}
		r.typedArgument(a, params[i])
	}
}

// typedArgument reports an argument whose type cannot be want (nil: any);
// schema instances are left to run time.
func (r *checker) typedArgument(a syntax.Expr, want *typ) {
	if a == nil {
		return
	}
	t := r.exprType(a, 0)
	if want == nil && t.hasModule() {
		want = anyT
	}
	if want == nil {
		return
	}
	if t.isAny() || t.kind == tSchema || t.kind == tUnion && hasSchema(t) {
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
