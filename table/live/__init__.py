"""The live table: the control loop, LEDs, game log and demo (I/O; imports vision and table/hw)."""
