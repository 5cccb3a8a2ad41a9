// Package tables finds the tables on a page from its word boxes — rows, columns, headers, row labels, caption and
// box — and writes them as CSV, JSON, Markdown and XLSX.
package tables
