package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// o200kLines are lines that try the edges of the pieces: a line break
// after punctuation (which O200K joins to the breaks and slashes after
// it), lines that begin with white space, '/', another break or non-ASCII
// space, and markdown as the brief writes it.
var o200kLines = []string{
	"# demo\n", "- I0042 keep the retry budget under the pooler's idle timeout\n", "\n", "\n\n", "  indented\n",
	"\tfunc main() {\n", "/usr/local/bin\n", "end.\n", "(see `smriti state demo --all`)\n", "…\n", "\u00a0nbsp\n",
	"\u3000全角\n", "\u2028sep\n", "x\r\n", "\r\n", "- [ ] task\n", "- [x] done\n", "~612 tokens\n", "12345\n",
	"hello/\n", "/\n", "'s\n", "Über\n", "नमस्ते दुनिया\n", "你好，世界\n", "🙂👍🏽\n", "a\u0301\n", "   \n", "!!!\n",
}

// TestO200KPiecesAddUp: counting a text in o200kPieces gives the count of
// the whole text, on the corpus, on its lines shuffled and joined, and on
// random mixes of the edge lines above.
func TestO200KPiecesAddUp(t *testing.T) {
	enc, err := load(O200K)
	if err != nil {
		t.Fatal(err)
	}
	whole := func(s string) int { return len(enc.EncodeOrdinary(s)) }
	var texts []string
	var lines []string
	for _, text := range corpus(t) {
		texts = append(texts, text, text+"\n"+text)
		lines = append(lines, strings.SplitAfter(text, "\n")...)
	}
	lines = append(lines, o200kLines...)
	r := rand.New(rand.NewPCG(47, 1))
	for range 400 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(lines[r.IntN(len(lines))])
		}
		texts = append(texts, b.String())
	}
	splits := 0
	for _, text := range texts {
		sum, n := 0, 0
		for piece := range o200kPieces(text) {
			sum += whole(piece)
			n++
		}
		splits += n - 1
		if want := whole(text); sum != want {
			t.Fatalf("pieces count %d, the whole %d, for %q", sum, want, text)
		}
		if got := CountO200K(text); got != whole(text) {
			t.Fatalf("CountO200K = %d, want %d for %q", got, whole(text), text)
		}
	}
	if splits < 1000 {
		t.Fatalf("only %d splits over %d texts: the test does not try the pieces", splits, len(texts))
	}
}

// The pieces are the text, in order.
func TestO200KPiecesCoverText(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\nb", "a\n b\nc\n/d\n\ne\n", "\n", "x\n\u00a0y\nz"} {
		var got []string
		for p := range o200kPieces(text) {
			got = append(got, p)
		}
		if strings.Join(got, "") != text || slices.Contains(got, "") {
			t.Fatalf("pieces of %q = %q", text, got)
		}
	}
	var got []string
	for p := range o200kPieces("a\n b\nc\n/d\n\ne\n") {
		got = append(got, p)
	}
	if want := []string{"a\n b\n", "c\n/d\n\n", "e\n"}; !slices.Equal(got, want) {
		t.Fatalf("pieces = %q, want %q", got, want)
	}
}

// The memo stays within its two generations and keeps what is in use.
func TestCountMemoBounded(t *testing.T) {
	m := &countMemo{}
	line := strings.Repeat("x", 1000)
	for i := range 5000 {
		m.put(line+string(rune('a'+i%26))+strings.Repeat("y", i), i)
		if m.curBytes > memoBytes {
			t.Fatalf("current generation holds %d bytes, over %d", m.curBytes, memoBytes)
		}
	}
	m.put("kept", 7)
	for range 3000 {
		if n, ok := m.get("kept"); !ok || n != 7 {
			t.Fatalf("get(kept) = %d, %v", n, ok)
		}
		m.put(line+strings.Repeat("z", len(m.cur)), 1)
	}
	m.forget()
	if _, ok := m.get("kept"); ok {
		t.Fatal("forget kept a count")
	}
}
