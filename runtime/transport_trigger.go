package runtime

// TransportTrigger names the turns an inbound trigger started (package
// trigger).
const TransportTrigger = "trigger"
