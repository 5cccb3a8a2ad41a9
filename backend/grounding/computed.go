package grounding

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"proofglass/backend/agent"
)

// nearShare is how far (a share of the calculation's result) an answer's figure may be from it and still be read as
// that calculation's result misstated rather than another figure.
const nearShare = 0.2

// withCalculations settles the figures of an answer that no page holds by the run's calculations: a figure equal to
// a calculation's result (as the answer rounds it) whose operands are all in the cited evidence is computed; one
// near a result but different is a mismatch naming the calculation's value. Figures found in a cited region or page
// keep their status.
func withCalculations(claims []Claim, info *agent.GroundingInfo, ev Evidence) {
	if len(ev.Calculations) == 0 {
		return
	}
	grounded := map[string][]hit{} // calculation id → where each operand was found; nil: not all found
	for _, c := range ev.Calculations {
		if c.Error == "" && c.Value != nil {
			grounded[c.ID] = operandsFound(c, ev)
		}
	}
	for i, c := range claims {
		g := &info.Claims[i]
		if !c.Figure() || c.Kind == KindDate || c.Kind == KindYear || len(c.Values) == 0 ||
			g.Status == agent.GroundRegion || g.Status == agent.GroundCitedPage {
			continue
		}
		var near *agent.CalculationInfo
		nearBy := math.Inf(1)
		done := false
		for k := range ev.Calculations {
			calc := &ev.Calculations[k]
			if calc.Error != "" || calc.Value == nil || !sameUnit(c, calc.Unit) {
				continue
			}
			v := *calc.Value
			diff := math.Inf(1)
			for _, cv := range c.Values {
				diff = math.Min(diff, math.Abs(cv-v))
			}
			if diff <= roundingOf(c, v) {
				hits := grounded[calc.ID]
				if hits == nil {
					g.Note = fmt.Sprintf("equals calculation %s (%s = %s), but its operands were not found in the cited evidence",
						calc.ID, calc.Expression, calc.Text)
					continue
				}
				g.Status, g.Calculation = agent.GroundComputed, calc.ID
				g.Note = computedNote(calc, hits)
				if h := hits[0]; h.page != nil {
					text, boxes := h.words()
					g.Found = &agent.GroundEvidence{UnitID: unitRef(h.page.UnitID), DocumentID: unitRef(h.page.DocumentID),
						DocumentName: h.page.DocumentName, Page: h.page.Ordinal, Text: text, Boxes: boxes}
				}
				done = true
				break
			}
			if diff <= nearShare*math.Abs(v) && diff < nearBy {
				near, nearBy = calc, diff
			}
		}
		if done || near == nil || (g.Status != agent.GroundNotFound && g.Status != agent.GroundMismatch) {
			continue
		}
		g.Status, g.Calculation, g.Found = agent.GroundMismatch, near.ID, nil
		g.Note = fmt.Sprintf("%s — calculation %s (%s) gives %s", strings.TrimSpace(c.Text), near.ID, near.Expression, near.Text)
	}
}

// sameUnit: a percentage result is matched by a percentage, a plain number by a plain number, points by either.
func sameUnit(c Claim, unit string) bool {
	switch unit {
	case "%":
		return c.Percent
	case "pp":
		return true
	}
	return !c.Percent
}

// roundingOf is the largest difference the answer's rounding of v explains: half a unit of its last written digit
// (at its scale word: "$4.1 billion" is 4.1e9 ± 0.05e9).
func roundingOf(c Claim, v float64) float64 {
	unit := math.Pow(10, -float64(c.Decimals))
	if c.Scale > 0 {
		unit *= c.Scale
	}
	return unit/2 + 1e-9*math.Abs(v)
}

// operandsFound finds each operand's written value in the cited evidence (regions first, then cited pages; on the
// page its source names when that resolved to one); nil when one is missing.
func operandsFound(c agent.CalculationInfo, ev Evidence) []hit {
	if len(c.Operands) == 0 {
		return nil
	}
	var out []hit
	for _, op := range c.Operands {
		claims := Extract(op.Value)
		if len(claims) == 0 || !claims[0].Figure() || len(claims[0].Values) == 0 {
			return nil
		}
		cl := claims[0]
		unit := int64(0)
		if op.Source != nil && op.Source.UnitID != "" {
			unit, _ = strconv.ParseInt(op.Source.UnitID, 10, 64)
		}
		var areas []Area
		for _, a := range ev.Regions {
			if unit == 0 || a.Page.UnitID == unit {
				areas = append(areas, a)
			}
		}
		var pages []*Page
		for _, p := range ev.Cited {
			if unit == 0 || p.UnitID == unit {
				pages = append(pages, p)
			}
		}
		var loose hit
		h, ok := firstHit(cl, areas, answerSide{}, &loose)
		if !ok {
			h, ok = firstPageHit(cl, pages, answerSide{}, &loose)
		}
		if !ok {
			return nil
		}
		out = append(out, h)
	}
	return out
}

// computedNote says the calculation and where its operands were read: "computed by calc-1: growth(vaginal,
// planned) = 42.86% from 350.0 (page 2) and 500.0 (page 2)".
func computedNote(c *agent.CalculationInfo, hits []hit) string {
	var from []string
	for i, op := range c.Operands {
		s := op.Value
		if i < len(hits) && hits[i].page != nil {
			s += fmt.Sprintf(" (page %d)", hits[i].page.Ordinal)
		}
		from = append(from, s)
	}
	list := strings.Join(from, ", ")
	if n := len(from); n > 1 {
		list = strings.Join(from[:n-1], ", ") + " and " + from[n-1]
	}
	return fmt.Sprintf("computed by %s: %s = %s from %s", c.ID, c.Expression, c.Text, list)
}
