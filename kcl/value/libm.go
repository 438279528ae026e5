package value

import (
	"math"
	"math/big"
)

// Correctly rounded exp, log and pow. The official engine calls the C library's
// (glibc's near-correctly-rounded) functions; Go's math package may be an ulp
// off, which shows in printed floats. These compute in 192-bit precision and
// round once.

const libmPrec = 192

var (
	bigLn2  = mustBig("0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573368552023575813055703267075163507596193072757082837143519030703862389167347112335")
	bigLn10 = mustBig("2.30258509299404568401799145468436420760110148862877297603332790096757260967735248023599720508959829834196778404228624863340952546508280675666628736909878168948290720832555468084379989482623319852839350")
)

func mustBig(s string) *big.Float {
	f, _, err := big.ParseFloat(s, 10, libmPrec, big.ToNearestEven)
	if err != nil {
		panic(err) // a constant above; never fails
	}
	return f
}

func newBig(x float64) *big.Float { return new(big.Float).SetPrec(libmPrec).SetFloat64(x) }

// bigExp returns e**x for a big x of moderate size.
func bigExp(x *big.Float) *big.Float {
	// x = k*ln2 + r with |r| <= ln2/2
	xf, _ := x.Float64()
	k := math.Round(xf / math.Ln2)
	r := new(big.Float).SetPrec(libmPrec).Mul(newBig(k), bigLn2)
	r.Sub(x, r)
	sum := newBig(1)
	term := newBig(1)
	eps := new(big.Float).SetMantExp(newBig(1), -libmPrec-8)
	for n := 1; n < 200; n++ {
		term.Mul(term, r)
		term.Quo(term, newBig(float64(n)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// bigLog returns ln(x) for a finite x > 0.
func bigLog(x float64) *big.Float {
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	m := newBig(frac * 2)      // [1, 2)
	e := exp - 1
	// ln(m) = 2*atanh(t), t = (m-1)/(m+1)
	t := new(big.Float).SetPrec(libmPrec).Sub(m, newBig(1))
	t.Quo(t, new(big.Float).SetPrec(libmPrec).Add(m, newBig(1)))
	t2 := new(big.Float).SetPrec(libmPrec).Mul(t, t)
	sum := new(big.Float).SetPrec(libmPrec).Set(t)
	pow := new(big.Float).SetPrec(libmPrec).Set(t)
	eps := new(big.Float).SetMantExp(newBig(1), -libmPrec-8)
	for n := 3; n < 1000; n += 2 {
		pow.Mul(pow, t2)
		term := new(big.Float).SetPrec(libmPrec).Quo(pow, newBig(float64(n)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	sum.Mul(sum, newBig(2))
	return sum.Add(sum, new(big.Float).SetPrec(libmPrec).Mul(newBig(float64(e)), bigLn2))
}

func toFloat(b *big.Float) float64 {
	f, _ := b.Float64()
	return f
}

// LibmExp is e**x, correctly rounded.
func LibmExp(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x > 710 || x < -746 || x == 0 {
		return math.Exp(x)
	}
	return toFloat(bigExp(newBig(x)))
}

// LibmExpm1 is e**x - 1, correctly rounded.
func LibmExpm1(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x > 710 || x < -40 || x == 0 {
		return math.Expm1(x)
	}
	if math.Abs(x) < 0.5 {
		// the series keeps full relative precision for tiny x
		sum := newBig(x)
		term := newBig(x)
		bx := newBig(x)
		eps := new(big.Float).SetMantExp(newBig(1), -libmPrec-8)
		eps.Mul(eps, new(big.Float).Abs(bx))
		for n := 2; n < 200; n++ {
			term.Mul(term, bx)
			term.Quo(term, newBig(float64(n)))
			sum.Add(sum, term)
			if new(big.Float).Abs(term).Cmp(eps) < 0 {
				break
			}
		}
		return toFloat(sum)
	}
	r := bigExp(newBig(x))
	return toFloat(r.Sub(r, newBig(1)))
}

// LibmLog is the natural logarithm, correctly rounded.
func LibmLog(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 || x == 1 {
		return math.Log(x)
	}
	return toFloat(bigLog(x))
}

// LibmLog2 is log base 2, correctly rounded.
func LibmLog2(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return math.Log2(x)
	}
	if frac, exp := math.Frexp(x); frac == 0.5 {
		return float64(exp - 1)
	}
	return toFloat(new(big.Float).SetPrec(libmPrec).Quo(bigLog(x), bigLn2))
}

// LibmLog10 is log base 10, correctly rounded.
func LibmLog10(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return math.Log10(x)
	}
	r := toFloat(new(big.Float).SetPrec(libmPrec).Quo(bigLog(x), bigLn10))
	if p := math.Round(r); math.Abs(r-p) < 1e-9 && math.Pow(10, p) == x {
		return p // exact powers of ten
	}
	return r
}

// LibmPow is x**y, correctly rounded where the C library's pow is.
func LibmPow(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 || x == 1:
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		x = -x
		neg = math.Mod(y, 2) != 0
	}
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		// small integer powers: exact product, one rounding
		p := newBig(1)
		bx := newBig(x)
		for range int(math.Abs(y)) {
			p.Mul(p, bx)
		}
		if y < 0 {
			p.Quo(newBig(1), p)
		}
		r := toFloat(p)
		if neg {
			return -r
		}
		return r
	}
	l := new(big.Float).SetPrec(libmPrec).Mul(bigLog(x), newBig(y))
	lf, _ := l.Float64()
	var r float64
	switch {
	case lf > 710:
		r = math.Inf(1)
	case lf < -746:
		r = 0
	default:
		r = toFloat(bigExp(l))
	}
	if neg {
		return -r
	}
	return r
}
