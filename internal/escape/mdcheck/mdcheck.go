// Package mdcheck renders Markdown the way a CI step summary or a README
// viewer would — CommonMark plus GFM tables and strikethrough, raw HTML
// passed through — so tests can see which elements an artifact makes.
// Tests only: it is the one user of goldmark, which never enters the wasm
// module.
package mdcheck

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithRendererOptions(html.WithUnsafe()),
)

// Render returns the HTML of src.
func Render(src []byte) string {
	var b bytes.Buffer
	if err := md.Convert(src, &b); err != nil {
		return "render error: " + err.Error()
	}
	return b.String()
}

var reTag = regexp.MustCompile(`<(/?[a-zA-Z][a-zA-Z0-9-]*)`)

// Tags lists the element tags of the rendered src in order (opening and
// closing, without attributes): two renderings with the same list made
// the same elements.
func Tags(src []byte) []string {
	var out []string
	for _, m := range reTag.FindAllStringSubmatch(Render(src), -1) {
		out = append(out, m[1])
	}
	return out
}
