package schedule_test

import (
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// TestMain stops the shared real redis-server after the tests.
func TestMain(m *testing.M) { testutil.Main(m) }
