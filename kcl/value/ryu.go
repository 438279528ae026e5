package value

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
)

// A port of Ryū's d2d (shortest round-trip digits of a float64) as the Rust ryu
// crate, and thus serde_json and serde_yaml in the official engine, computes it.
// Go's strconv also produces shortest digits but breaks some 17-digit ties
// differently (0.12000000000000455 vs the engine's 0.12000000000000456), and
// output must match byte for byte.

const (
	ryuMantissaBits = 52
	ryuExponentBits = 11
	ryuBias         = 1023
	ryuPow5InvBits  = 125
	ryuPow5Bits     = 125
	ryuPow5InvSize  = 342
	ryuPow5Size     = 326
)

var (
	ryuOnce      sync.Once
	ryuPow5Inv   [ryuPow5InvSize][2]uint64 // {low, high}
	ryuPow5Split [ryuPow5Size][2]uint64
)

func ryuPow5bits(e int32) int32   { return int32((uint32(e)*1217359)>>19) + 1 }
func ryuLog10Pow2(e int32) uint32 { return (uint32(e) * 78913) >> 18 }
func ryuLog10Pow5(e int32) uint32 { return (uint32(e) * 732923) >> 20 }

func ryuTables() {
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1))
	split := func(v *big.Int) [2]uint64 {
		return [2]uint64{new(big.Int).And(v, mask).Uint64(), new(big.Int).Rsh(v, 64).Uint64()}
	}
	pow5 := big.NewInt(1)
	for i := 0; i < ryuPow5Size || i < ryuPow5InvSize; i++ {
		bitsI := int(ryuPow5bits(int32(i)))
		if i < ryuPow5Size {
			v := new(big.Int).Set(pow5)
			if shift := bitsI - ryuPow5Bits; shift > 0 {
				v.Rsh(v, uint(shift))
			} else {
				v.Lsh(v, uint(-shift))
			}
			ryuPow5Split[i] = split(v)
		}
		if i < ryuPow5InvSize {
			v := new(big.Int).Lsh(big.NewInt(1), uint(bitsI-1+ryuPow5InvBits))
			v.Div(v, pow5)
			v.Add(v, big.NewInt(1))
			ryuPow5Inv[i] = split(v)
		}
		pow5.Mul(pow5, big.NewInt(5))
	}
}

func ryuMulShift64(m uint64, mul [2]uint64, j int32) uint64 {
	high1, low1 := bits.Mul64(m, mul[1])
	high0, _ := bits.Mul64(m, mul[0])
	sum, carry := bits.Add64(high0, low1, 0)
	high1 += carry
	shift := uint(j - 64)
	return (sum >> shift) | (high1 << (64 - shift))
}

func ryuPow5Factor(v uint64) uint32 {
	var count uint32
	for v%5 == 0 {
		v /= 5
		count++
	}
	return count
}

func ryuMultipleOfPow5(v uint64, p uint32) bool { return ryuPow5Factor(v) >= p }
func ryuMultipleOfPow2(v uint64, p uint32) bool { return v&(1<<p-1) == 0 }

// ryuDigits returns the shortest decimal digits and exponent of a finite, non-zero
// positive float: f = digits * 10^exp.
func ryuDigits(f float64) (uint64, int32) {
	ryuOnce.Do(ryuTables)
	b := math.Float64bits(f)
	ieeeMantissa := b & (1<<ryuMantissaBits - 1)
	ieeeExponent := uint32(b>>ryuMantissaBits) & (1<<ryuExponentBits - 1)
	var e2 int32
	var m2 uint64
	if ieeeExponent == 0 {
		e2 = 1 - ryuBias - ryuMantissaBits - 2
		m2 = ieeeMantissa
	} else {
		e2 = int32(ieeeExponent) - ryuBias - ryuMantissaBits - 2
		m2 = 1<<ryuMantissaBits | ieeeMantissa
	}
	acceptBounds := m2&1 == 0
	mv := 4 * m2
	var mmShift uint64
	if ieeeMantissa != 0 || ieeeExponent <= 1 {
		mmShift = 1
	}
	var vr, vp, vm uint64
	var e10 int32
	vmTrailingZeros, vrTrailingZeros := false, false
	if e2 >= 0 {
		q := ryuLog10Pow2(e2)
		if e2 > 3 {
			q--
		}
		e10 = int32(q)
		k := ryuPow5InvBits + ryuPow5bits(int32(q)) - 1
		i := -e2 + int32(q) + k
		mul := ryuPow5Inv[q]
		vr = ryuMulShift64(4*m2, mul, i)
		vp = ryuMulShift64(4*m2+2, mul, i)
		vm = ryuMulShift64(4*m2-1-mmShift, mul, i)
		if q <= 21 {
			switch {
			case mv%5 == 0:
				vrTrailingZeros = ryuMultipleOfPow5(mv, q)
			case acceptBounds:
				vmTrailingZeros = ryuMultipleOfPow5(mv-1-mmShift, q)
			default:
				if ryuMultipleOfPow5(mv+2, q) {
					vp--
				}
			}
		}
	} else {
		q := ryuLog10Pow5(-e2)
		if -e2 > 1 {
			q--
		}
		e10 = int32(q) + e2
		i := -e2 - int32(q)
		k := ryuPow5bits(i) - ryuPow5Bits
		j := int32(q) - k
		mul := ryuPow5Split[i]
		vr = ryuMulShift64(4*m2, mul, j)
		vp = ryuMulShift64(4*m2+2, mul, j)
		vm = ryuMulShift64(4*m2-1-mmShift, mul, j)
		if q <= 1 {
			vrTrailingZeros = true
			if acceptBounds {
				vmTrailingZeros = mmShift == 1
			} else {
				vp--
			}
		} else if q < 63 {
			vrTrailingZeros = ryuMultipleOfPow2(mv, q)
		}
	}
	var removed int32
	var lastRemoved uint64
	var output uint64
	if vmTrailingZeros || vrTrailingZeros {
		for vp/10 > vm/10 {
			vmTrailingZeros = vmTrailingZeros && vm%10 == 0
			vrTrailingZeros = vrTrailingZeros && lastRemoved == 0
			lastRemoved = vr % 10
			vr, vp, vm = vr/10, vp/10, vm/10
			removed++
		}
		if vmTrailingZeros {
			for vm%10 == 0 {
				vrTrailingZeros = vrTrailingZeros && lastRemoved == 0
				lastRemoved = vr % 10
				vr, vp, vm = vr/10, vp/10, vm/10
				removed++
			}
		}
		if vrTrailingZeros && lastRemoved == 5 && vr%2 == 0 {
			lastRemoved = 4 // round to even on an exact .5
		}
		output = vr
		if (vr == vm && (!acceptBounds || !vmTrailingZeros)) || lastRemoved >= 5 {
			output++
		}
	} else {
		roundUp := false
		if vp/100 > vm/100 {
			roundUp = vr%100 >= 50
			vr, vp, vm = vr/100, vp/100, vm/100
			removed += 2
		}
		for vp/10 > vm/10 {
			roundUp = vr%10 >= 5
			vr, vp, vm = vr/10, vp/10, vm/10
			removed++
		}
		output = vr
		if vr == vm || roundUp {
			output++
		}
	}
	return output, e10 + removed
}

// ryuDecimal returns the digits as text and the decimal exponent of the first
// digit (f = 0.d1d2... * 10^point) for a finite, non-zero, positive f.
func ryuDecimal(f float64) (string, int) {
	out, exp := ryuDigits(f)
	digits := strconv.FormatUint(out, 10)
	return digits, len(digits) + int(exp)
}
