package inspect

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// chartNS are the namespaces of DrawingML charts, transitional and strict.
var chartNS = map[string]bool{
	"http://schemas.openxmlformats.org/drawingml/2006/chart": true,
	"http://purl.oclc.org/ooxml/drawingml/chart":             true,
}

// maxChartPoints bounds the rows of a chart's table.
const maxChartPoints = 2000

type chartPt struct {
	Idx int    `xml:"idx,attr"`
	V   string `xml:"v"`
}

// chartSer is one series: its name, categories (or x values) and values.
type chartSer struct {
	Name   []chartPt `xml:"tx>strRef>strCache>pt"`
	NameV  string    `xml:"tx>v"`
	CatStr []chartPt `xml:"cat>strRef>strCache>pt"`
	CatNum []chartPt `xml:"cat>numRef>numCache>pt"`
	CatLit []chartPt `xml:"cat>strLit>pt"`
	CatML  []chartPt `xml:"cat>multiLvlStrRef>multiLvlStrCache>lvl>pt"`
	Val    []chartPt `xml:"val>numRef>numCache>pt"`
	ValLit []chartPt `xml:"val>numLit>pt"`
	XNum   []chartPt `xml:"xVal>numRef>numCache>pt"`
	XStr   []chartPt `xml:"xVal>strRef>strCache>pt"`
	Y      []chartPt `xml:"yVal>numRef>numCache>pt"`
}

type chartDoc struct {
	Title []string `xml:"chart>title>tx>rich>p>r>t"`
	Plot  struct {
		Groups []struct {
			XMLName xml.Name
			Series  []chartSer `xml:"ser"`
		} `xml:",any"`
	} `xml:"chart>plotArea"`
}

// chartText renders a chart part as its title and a markdown table of its
// series: a row per category (or x value), a column per series, the values
// the chart caches (what it shows).
func chartText(data []byte) (string, error) {
	var c chartDoc
	if err := newDecoder(data).Decode(&c); err != nil {
		return "", err
	}
	var series []chartSer
	kinds := map[string]bool{}
	var kindList []string
	for _, g := range c.Plot.Groups {
		if len(g.Series) == 0 {
			continue
		}
		if k := strings.TrimSuffix(g.XMLName.Local, "Chart"); !kinds[k] {
			kinds[k] = true
			kindList = append(kindList, k)
		}
		series = append(series, g.Series...)
	}
	title := strings.TrimSpace(strings.Join(c.Title, ""))
	head := "Chart"
	if len(kindList) > 0 {
		head = fmt.Sprintf("Chart (%s)", strings.Join(kindList, ", "))
	}
	if title != "" {
		head += ": " + title
	}
	if len(series) == 0 {
		return head, nil
	}
	cats := map[int]string{}
	n := 0
	header := []string{"Category"}
	for _, s := range series {
		for _, pts := range [][]chartPt{s.CatStr, s.CatNum, s.CatLit, s.CatML, s.XStr, s.XNum} {
			for _, p := range pts {
				if p.Idx >= 0 && p.Idx < maxChartPoints && cats[p.Idx] == "" {
					cats[p.Idx] = p.V
					n = max(n, p.Idx+1)
				}
			}
		}
		name := s.NameV
		if len(s.Name) > 0 {
			name = s.Name[0].V
		}
		header = append(header, firstOf(name, fmt.Sprintf("Series %d", len(header))))
	}
	for _, s := range series {
		for _, pts := range [][]chartPt{s.Val, s.ValLit, s.Y} {
			for _, p := range pts {
				if p.Idx >= 0 && p.Idx < maxChartPoints {
					n = max(n, p.Idx+1)
				}
			}
		}
	}
	rows := [][]string{header}
	for i := range n {
		row := []string{firstOf(cats[i], fmt.Sprint(i+1))}
		for _, s := range series {
			row = append(row, pointValue(i, s.Val, s.ValLit, s.Y))
		}
		rows = append(rows, row)
	}
	return head + "\n\n" + markdownTable(rows), nil
}

func pointValue(i int, lists ...[]chartPt) string {
	for _, pts := range lists {
		for _, p := range pts {
			if p.Idx == i {
				return p.V
			}
		}
	}
	return ""
}
