package dbx

import (
	"fmt"
	"smriti/internal/textutil"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"smriti"
)

// Keyset is the paging half of a keyset-paginated listing, newest first:
// the condition that starts after the cursor, the order, and a limit one
// row over the page, so that the extra row says another page follows.
// A list is ordered either by a time column then an id column (timeCol,
// idCol; cursor "<unix micros>_<id>") or by a log position (logCol;
// cursor "<log position>"). Cursors are opaque to clients.
type Keyset struct {
	after                  string
	limit                  int
	timeCol, idCol, logCol string
}

// TimeKeyset pages a list ordered by timeCol then idCol, newest first.
func TimeKeyset(page smriti.Page, timeCol, idCol string) Keyset {
	return Keyset{after: page.After, limit: ClampLimit(page.Limit, smriti.ListCap, smriti.ListCap), timeCol: timeCol, idCol: idCol}
}

// LogKeyset pages a list ordered by the log position in logCol, newest
// first.
func LogKeyset(page smriti.Page, logCol string) Keyset {
	return Keyset{after: page.After, limit: ClampLimit(page.Limit, smriti.ListCap, smriti.ListCap), logCol: logCol}
}

// Apply appends the cursor's condition (query already has a WHERE), the
// order and the limit; EINVALID for a cursor this list never gave.
func (k Keyset) Apply(d Dialect, query string, args []any) (string, []any, error) {
	if k.logCol != "" {
		if k.after != "" {
			pos, err := parseLogCursor(k.after)
			if err != nil {
				return "", nil, err
			}
			query += ` AND ` + k.logCol + ` < ?`
			args = append(args, pos)
		}
		return query + ` ORDER BY ` + k.logCol + ` DESC LIMIT ?`, append(args, k.limit+1), nil
	}
	if k.after != "" {
		t, id, err := parseTimeCursor(k.after)
		if err != nil {
			return "", nil, err
		}
		query += fmt.Sprintf(` AND (%s < ? OR (%s = ? AND %s < ?))`, k.timeCol, k.timeCol, k.idCol)
		args = append(args, d.T(t), d.T(t), id)
	}
	return query + fmt.Sprintf(` ORDER BY %s DESC, %s DESC LIMIT ?`, k.timeCol, k.idCol), append(args, k.limit+1), nil
}

// PageOf cuts the rows a Keyset query returned to the page and gives the
// cursor of the next ("" after the last page).
func PageOf[T any](k Keyset, rows []T, cursor func(T) string) ([]T, string) {
	if len(rows) <= k.limit {
		return rows, ""
	}
	rows = rows[:k.limit]
	return rows, cursor(rows[len(rows)-1])
}

func ClampLimit(n, def, max int) int {
	if n <= 0 {
		return def
	}
	if n > max {
		return max
	}
	return n
}

func TimeCursor(t time.Time, id smriti.ID) string {
	return strconv.FormatInt(t.UnixMicro(), 10) + "_" + id.String()
}

func parseTimeCursor(c string) (time.Time, smriti.ID, error) {
	ts, idPart, ok := strings.Cut(c, "_")
	micros, err := strconv.ParseInt(ts, 10, 64)
	id, err2 := uuid.Parse(idPart)
	if !ok || err != nil || err2 != nil {
		return time.Time{}, smriti.NilID, smriti.Errorf(smriti.EINVALID, "invalid page cursor %q", textutil.Truncate(c, 80))
	}
	return time.UnixMicro(micros).UTC(), id, nil
}

func parseLogCursor(c string) (int64, error) {
	n, err := strconv.ParseInt(c, 10, 64)
	if err != nil || n < 0 {
		return 0, smriti.Errorf(smriti.EINVALID, "invalid page cursor %q", textutil.Truncate(c, 80))
	}
	return n, nil
}
