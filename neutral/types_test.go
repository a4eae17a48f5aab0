package neutral_test

import "github.com/harnest/harnest/config"

type configT = config.Config
