package procstat

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape.
type Families map[string]*dto.MetricFamily

// Scrape reads a Prometheus text endpoint over plain HTTP.
func Scrape(ctx context.Context, url string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: %s", url, resp.Status)
	}
	return Parse(resp.Body)
}

// Parse reads the Prometheus text format.
func Parse(r io.Reader) (Families, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return Families(fams), nil
}

// Sum adds the values of a counter (or gauge, or a histogram's sample count) over the series
// whose labels pass keep (nil keeps all); a missing family sums to 0.
func (f Families) Sum(name string, keep func(labels map[string]string) bool) float64 {
	fam := f[name]
	if fam == nil {
		return 0
	}
	var total float64
	for _, m := range fam.GetMetric() {
		if keep != nil {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if !keep(labels) {
				continue
			}
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

// Label keeps series whose label name has one of values (compared case-insensitively).
func Label(name string, values ...string) func(map[string]string) bool {
	return func(labels map[string]string) bool {
		for _, v := range values {
			if strings.EqualFold(labels[name], v) {
				return true
			}
		}
		return false
	}
}
