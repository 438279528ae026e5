package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart is a line chart drawn as hand-written SVG: axes with ticks, labels and a legend.
type Chart struct {
	Title  string
	XLabel string
	YLabel string
	Series []Series
	// YMax fixes the top of the y axis (0 fits the data).
	YMax float64
}

// Series is one line of a chart.
type Series struct {
	Name   string
	Points []Point
	// Dashed draws the line dashed (the reference side).
	Dashed bool
}

// Point is an (x, y) pair.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// A palette that stays readable when printed grey: dark to light, distinct hues.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"}

const (
	width, height              = 860, 480
	left, right, top, bottom   = 80, 250, 50, 60
	plotWidth, plotHeight      = width - left - right, height - top - bottom
	fontFamily                 = "DejaVu Sans, Helvetica, Arial, sans-serif"
	tickCount                  = 6
	legendLineLen, legendSpace = 28, 22
)

// WriteSVG draws the chart.
func (c Chart) WriteSVG(w io.Writer) error {
	xmax, ymax := 0.0, c.YMax
	for _, s := range c.Series {
		for _, p := range s.Points {
			xmax = math.Max(xmax, p.X)
			if c.YMax == 0 {
				ymax = math.Max(ymax, p.Y)
			}
		}
	}
	xstep, ystep := niceStep(xmax), niceStep(ymax)
	xmax, ymax = ceilTo(xmax, xstep), ceilTo(ymax, ystep)
	sx := func(x float64) float64 { return left + x/xmax*plotWidth }
	sy := func(y float64) float64 { return top + plotHeight - y/ymax*plotHeight }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="13">`+"\n", width, height, width, height, fontFamily)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="28" font-size="17" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(c.Title))

	// Grid and ticks.
	for x := 0.0; x <= xmax+xstep/2; x += xstep {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e5e5e5"/>`+"\n", sx(x), top, sx(x), top+plotHeight)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", sx(x), top+plotHeight+18, tickLabel(x, xstep))
	}
	for y := 0.0; y <= ymax+ystep/2; y += ystep {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, sy(y), left+plotWidth, sy(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, sy(y)+4, tickLabel(y, ystep))
	}
	// Axes.
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top+plotHeight, left+plotWidth, top+plotHeight)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, top+plotHeight)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotWidth/2, height-15, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(20 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+plotHeight/2, html.EscapeString(c.YLabel))

	// Lines and legend.
	for i, s := range c.Series {
		color := palette[i%len(palette)]
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="7 4"`
		}
		if len(s.Points) > 0 {
			var pts strings.Builder
			for _, p := range s.Points {
				fmt.Fprintf(&pts, "%.1f,%.1f ", sx(p.X), sy(p.Y))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dash, strings.TrimSpace(pts.String()))
		}
		ly := top + 10 + i*legendSpace
		lx := left + plotWidth + 20
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly, lx+legendLineLen, ly, color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", lx+legendLineLen+8, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceStep picks a tick step of 1, 2 or 5 times a power of ten giving about tickCount ticks.
func niceStep(max float64) float64 {
	if max <= 0 {
		return 1
	}
	raw := max / tickCount
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

func ceilTo(v, step float64) float64 {
	if v <= 0 {
		return step
	}
	return math.Ceil(v/step-1e-9) * step
}

func tickLabel(v, step float64) string {
	if step >= 1 {
		return fmt.Sprintf("%.0f", v)
	}
	decimals := int(math.Ceil(-math.Log10(step)))
	return fmt.Sprintf("%.*f", decimals, v)
}
