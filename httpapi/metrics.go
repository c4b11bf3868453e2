package httpapi

import (
	"net/http"
	"smriti/intelligence"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the server's Prometheus series, on a registry of its own so
// that several servers in one test process do not collide. main builds them
// before the provider registry, which reports its calls here
// (ObserveProviderCall), and hands them to the server.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	errors         *prometheus.CounterVec
	providerCalls  *prometheus.CounterVec
	providerTokens *prometheus.CounterVec
	providerTime   *prometheus.HistogramVec
}

// NewMetrics registers the series.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "smriti_http_requests_total", Help: "HTTP requests by method, route and status code."},
			[]string{"method", "route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "smriti_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}},
			[]string{"method", "route"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "smriti_errors_total", Help: "Error answers by domain error code."}, []string{"code"}),
		providerCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "smriti_provider_calls_total", Help: "LLM provider calls by provider, model and outcome."},
			[]string{"provider", "model", "outcome"}),
		providerTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "smriti_provider_tokens_total", Help: "LLM tokens by provider and direction (input/output)."},
			[]string{"provider", "direction"}),
		providerTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "smriti_provider_call_duration_seconds", Help: "LLM provider call latency.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10)}, []string{"provider"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.errors, m.providerCalls, m.providerTokens, m.providerTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Gauge adds a series whose value is read from value at each scrape, for
// figures another adapter owns (the store's turn cache).
func (m *Metrics) Gauge(name, help string, value func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, value))
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *Metrics) observeRequest(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(d.Seconds())
}

// ObserveProviderCall records one provider call; its signature is the
// provider registry's observer.
func (m *Metrics) ObserveProviderCall(provider, model, outcome string, usage intelligence.Usage, elapsed time.Duration) {
	m.providerCalls.WithLabelValues(provider, model, outcome).Inc()
	m.providerTokens.WithLabelValues(provider, "input").Add(float64(usage.InputTokens))
	m.providerTokens.WithLabelValues(provider, "output").Add(float64(usage.OutputTokens))
	m.providerTime.WithLabelValues(provider).Observe(elapsed.Seconds())
}
